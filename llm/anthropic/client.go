package anthropic

import (
	"context"
	"fmt"
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

// messagesPath is the Messages API endpoint, relative to the base URL.
const messagesPath = "v1/messages"

// Client is the anthropic_messages transport. It is safe for concurrent
// use; each Complete is independent.
type Client struct {
	sdk      anthropic.Client
	provider string
	native   bool
	noStream bool
	now      func() time.Time // for absolute retry times in error responses
	schemas  schemaCache
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
	now := opts.Now
	if now == nil {
		now = time.Now
	}
	return &Client{
		sdk:      anthropic.NewClient(ro...),
		provider: provider,
		native:   isNative(opts.Provider, base),
		noStream: opts.NoStream,
		now:      now,
	}
}

// Complete sends req and returns the assembled response. Deltas go to sink
// as they arrive when streaming. Cancelling ctx returns ctx.Err() and no
// partial response.
func (c *Client) Complete(ctx context.Context, req *llm.Request, sink func(llm.Delta)) (*llm.Response, error) {
	r, err := c.buildRequest(req)
	if err != nil {
		return nil, err
	}
	body, err := r.encode()
	if err != nil {
		return nil, err
	}
	var msg *anthropic.Message
	if c.noStream {
		// The SDK posts the bytes as they are and decodes the reply (or the
		// error body) into its types.
		if err = c.sdk.Post(ctx, messagesPath, body, &msg); err != nil {
			if cerr := ctx.Err(); cerr != nil {
				return nil, cerr
			}
			return nil, c.classify(err)
		}
	} else if msg, err = c.stream(ctx, body, sink); err != nil {
		return nil, err
	}
	return normalise(msg, c.provider)
}

// buildRequest converts a canonical request into Messages API terms. The
// request, and the history it holds, are only read.
func (c *Client) buildRequest(req *llm.Request) (*request, error) {
	if err := llm.CheckImages(req.Messages); err != nil {
		return nil, fmt.Errorf("anthropic: %w", err)
	}
	system, msgs := convertMessages(req.Messages, c.native)
	tools, err := c.schemas.convertTools(req.Tools)
	if err != nil {
		return nil, err
	}
	budget, adaptive, err := thinkingConfig(req.Model, req.ReasoningEffort)
	if err != nil {
		return nil, err
	}
	if c.native && unsignedToolTurn(msgs) {
		// Anthropic rejects thinking when the tool round in progress was
		// started without a thinking block (another provider, or thinking
		// turned on mid-round); the next round thinks again.
		budget, adaptive = 0, ""
	}
	maxTokens := int64(req.MaxTokens)
	if maxTokens <= 0 {
		maxTokens = DefaultMaxTokens
	}
	if budget > 0 && maxTokens <= budget {
		// max_tokens counts thinking too: keep the asked-for room for the answer.
		maxTokens += budget
	}
	r := &request{
		model: req.Model, maxTokens: maxTokens, messages: msgs, tools: tools,
		budget: budget, adaptive: adaptive, stream: !c.noStream,
	}
	if req.Cache != nil {
		var sys []anthropic.TextBlockParam
		if system != "" {
			sys = []anthropic.TextBlockParam{{Text: system}}
		}
		r.system, r.messages = ApplyCacheMarkers(sys, msgs, req.Cache.TTL)
	} else {
		// A plain string: the shape with no marker.
		r.systemText = system
	}
	if req.Temperature != nil && budget == 0 && adaptive == "" {
		// Thinking requires the default temperature.
		r.temperature = req.Temperature
	}
	return r, nil
}
