package provider

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/hermes-go/hermes/llm"
)

// step is one scripted outcome of a call.
type step struct {
	deltas []llm.Delta
	text   string // answer text when err is nil
	err    error
	nilRes bool // return (nil, nil)
	block  bool // wait for ctx to end and return its error
	before func()
}

// call is what a fake endpoint received.
type call struct {
	endpoint string
	model    string
	apiKey   string
	mode     llm.APIMode
	system   string
}

// fakeNet scripts every endpoint by base URL and records calls and
// transport builds.
type fakeNet struct {
	mu     sync.Mutex
	script map[string][]step
	calls  []call
	builds []string
}

func newFakeNet() *fakeNet { return &fakeNet{script: map[string][]step{}} }

func (n *fakeNet) on(baseURL string, steps ...step) *fakeNet {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.script[baseURL] = append(n.script[baseURL], steps...)
	return n
}

func (n *fakeNet) factory(mode llm.APIMode, o llm.Options) (llm.Client, error) {
	n.mu.Lock()
	n.builds = append(n.builds, o.BaseURL+"|"+o.APIKey)
	n.mu.Unlock()
	return llm.ClientFunc(func(ctx context.Context, req *llm.Request, sink func(llm.Delta)) (*llm.Response, error) {
		n.mu.Lock()
		c := call{endpoint: o.BaseURL, model: req.Model, apiKey: o.APIKey, mode: mode}
		if len(req.Messages) > 0 && req.Messages[0].Role == llm.RoleSystem {
			c.system = req.Messages[0].Content
		}
		n.calls = append(n.calls, c)
		steps := n.script[o.BaseURL]
		if len(steps) == 0 {
			n.mu.Unlock()
			return nil, fmt.Errorf("fake %s: no scripted reply left", o.BaseURL)
		}
		s := steps[0]
		if len(steps) > 1 {
			n.script[o.BaseURL] = steps[1:]
		}
		n.mu.Unlock()
		if s.before != nil {
			s.before()
		}
		for _, d := range s.deltas {
			if sink != nil {
				sink(d)
			}
		}
		switch {
		case s.block:
			<-ctx.Done()
			return nil, ctx.Err()
		case s.err != nil:
			return nil, s.err
		case s.nilRes:
			return nil, nil
		}
		return &llm.Response{Message: llm.Assistant(s.text), FinishReason: llm.FinishStop, Model: req.Model}, nil
	}), nil
}

func (n *fakeNet) callsTo(baseURL string) int {
	n.mu.Lock()
	defer n.mu.Unlock()
	k := 0
	for _, c := range n.calls {
		if c.endpoint == baseURL {
			k++
		}
	}
	return k
}

func (n *fakeNet) allCalls() []call {
	n.mu.Lock()
	defer n.mu.Unlock()
	return append([]call(nil), n.calls...)
}

func ok(text string) step { return step{text: text} }

func fail(kind llm.ErrorKind, status int) step {
	return step{err: &llm.ProviderError{Kind: kind, StatusCode: status, Message: string(kind)}}
}

func failAfter(kind llm.ErrorKind, retryAfter time.Duration) step {
	return step{err: &llm.ProviderError{Kind: kind, StatusCode: 429, Message: "slow down", RetryAfter: retryAfter}}
}

// recorder collects waits and events; its Sleep never sleeps.
type recorder struct {
	mu        sync.Mutex
	waits     []time.Duration
	retries   []RetryEvent
	fallbacks []FallbackEvent
}

func (r *recorder) sleep(ctx context.Context, d time.Duration) error {
	r.mu.Lock()
	r.waits = append(r.waits, d)
	r.mu.Unlock()
	return ctx.Err()
}

func (r *recorder) options(n *fakeNet) ChainOptions {
	return ChainOptions{
		Factory: n.factory,
		Sleep:   r.sleep,
		Rand:    func() float64 { return 0 },
		OnRetry: func(e RetryEvent) {
			r.mu.Lock()
			r.retries = append(r.retries, e)
			r.mu.Unlock()
		},
		OnFallback: func(e FallbackEvent) {
			r.mu.Lock()
			r.fallbacks = append(r.fallbacks, e)
			r.mu.Unlock()
		},
	}
}

var (
	primary = Endpoint{Provider: "openrouter", Model: "anthropic/claude-sonnet-4.5", BaseURL: "http://primary", APIKey: "k1", APIMode: llm.ChatCompletions}
	backup  = Endpoint{Provider: "anthropic", Model: "claude-haiku-4-5", BaseURL: "http://backup", APIKey: "k2", APIMode: llm.AnthropicMessages}
	third   = Endpoint{Provider: "openai", Model: "gpt-4o-mini", BaseURL: "http://third", APIKey: "k3", APIMode: llm.ChatCompletions}
)

func userRequest() *llm.Request {
	return &llm.Request{
		Model: "ignored",
		Messages: []llm.Message{
			llm.System("You are Hermes.\nModel: anthropic/claude-sonnet-4.5\nProvider: openrouter\nBe brief."),
			llm.User("hi"),
		},
	}
}
