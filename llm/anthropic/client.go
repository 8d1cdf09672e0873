package anthropic

import (
	"context"
	"net/http"
	"strings"
	"time"

	"github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/option"

	"github.com/hermes-go/hermes/llm"
)

// DefaultMaxTokens is the output cap sent when Request.MaxTokens is 0:
// the Messages API requires one.
const DefaultMaxTokens = 16384

// nonStreamTimeout is the SDK's per-attempt limit for non-streamed calls.
// Setting it skips the SDK's refusal of large max_tokens without streaming;
// ctx stays the real deadline.
const nonStreamTimeout = time.Hour

// Client is the anthropic_messages transport. It is safe for concurrent
// use; each Complete is independent.
type Client struct {
	sdk      anthropic.Client
	provider string
	native   bool
	noStream bool
}

var _ llm.Client = (*Client)(nil)

// New returns a transport for the Anthropic Messages API at opts.BaseURL
// (https://api.anthropic.com when empty; a trailing /v1 is accepted). The
// key goes in the x-api-key header, which both Anthropic and the
// Anthropic-compatible third parties read. The SDK's own retries and its
// environment lookups (ANTHROPIC_* variables, profile files) are off: the
// caller owns retry policy and credentials.
func New(opts llm.Options) *Client {
	base := strings.TrimRight(opts.BaseURL, "/")
	base = strings.TrimSuffix(base, "/v1")
	hc := opts.HTTPClient
	if hc == nil {
		hc = http.DefaultClient
	}
	ro := []option.RequestOption{
		option.WithoutEnvironmentDefaults(),
		option.WithHTTPClient(hc),
		option.WithMaxRetries(0),
	}
	if base != "" {
		ro = append(ro, option.WithBaseURL(base+"/"))
	}
	if opts.APIKey != "" {
		ro = append(ro, option.WithHeader("x-api-key", opts.APIKey))
	}
	for k, v := range opts.Headers {
		ro = append(ro, option.WithHeader(k, v))
	}
	provider := opts.Provider
	if provider == "" {
		provider = "anthropic"
	}
	return &Client{
		sdk:      anthropic.NewClient(ro...),
		provider: provider,
		native:   isNative(opts.Provider, base),
		noStream: opts.NoStream,
	}
}

// Complete sends req and returns the assembled response. Deltas go to sink
// as they arrive when streaming. Cancelling ctx returns ctx.Err() and no
// partial response.
func (c *Client) Complete(ctx context.Context, req *llm.Request, sink func(llm.Delta)) (*llm.Response, error) {
	params, err := c.buildParams(req)
	if err != nil {
		return nil, err
	}
	var msg *anthropic.Message
	if c.noStream {
		msg, err = c.sdk.Messages.New(ctx, params, option.WithRequestTimeout(nonStreamTimeout))
		if err != nil {
			if cerr := ctx.Err(); cerr != nil {
				return nil, cerr
			}
			return nil, c.classify(err)
		}
	} else if msg, err = c.stream(ctx, params, sink); err != nil {
		return nil, err
	}
	return normalise(msg, c.provider)
}

// buildParams converts a canonical request into Messages API params. The
// request, and the history it holds, are only read.
func (c *Client) buildParams(req *llm.Request) (anthropic.MessageNewParams, error) {
	system, msgs := convertMessages(req.Messages, c.native)
	tools, err := convertTools(req.Tools)
	if err != nil {
		return anthropic.MessageNewParams{}, err
	}
	thinking, output, budget, err := thinkingConfig(req.Model, req.ReasoningEffort)
	if err != nil {
		return anthropic.MessageNewParams{}, err
	}
	maxTokens := int64(req.MaxTokens)
	if maxTokens <= 0 {
		maxTokens = DefaultMaxTokens
	}
	if budget > 0 && maxTokens <= budget {
		// max_tokens counts thinking too: keep the asked-for room for the answer.
		maxTokens += budget
	}
	p := anthropic.MessageNewParams{
		Model:        req.Model,
		MaxTokens:    maxTokens,
		Messages:     msgs,
		Tools:        tools,
		Thinking:     thinking,
		OutputConfig: output,
	}
	extra := map[string]any{}
	if req.Cache != nil {
		var sys []anthropic.TextBlockParam
		if system != "" {
			sys = []anthropic.TextBlockParam{{Text: system}}
		}
		p.System, p.Messages = ApplyCacheMarkers(sys, msgs, req.Cache.TTL)
	} else if system != "" {
		// A plain string: the shape with no marker, byte-identical across calls.
		extra["system"] = system
	}
	if req.Temperature != nil && thinking.OfEnabled == nil && thinking.OfAdaptive == nil {
		// Thinking requires the default temperature.
		extra["temperature"] = *req.Temperature
	}
	if len(extra) > 0 {
		p.SetExtraFields(extra)
	}
	return p, nil
}
