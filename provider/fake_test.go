package provider

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/hermes-go/hermes/llm"
	"github.com/hermes-go/hermes/llm/llmtest"
)

// fakeNet is the transport factory of the chain tests. Each base URL is
// one llmtest.Client, shared by every transport built for it, whose last
// step answers every later call; a call to a base URL with no script fails
// the test. Each call is logged with the options of its transport.
type fakeNet struct {
	t testing.TB

	mu        sync.Mutex
	endpoints map[string]*llmtest.Client
	calls     []call
}

// call is what a fake endpoint received.
type call struct {
	endpoint string
	model    string
	apiKey   string
	mode     llm.APIMode
	system   string
}

// step is one scripted answer: a Reply, or a function for what a Reply
// cannot say (an error already classified, a side effect during the call).
type step struct {
	reply llmtest.Reply
	fn    llm.ClientFunc
}

func newFakeNet(t testing.TB) *fakeNet {
	return &fakeNet{t: t, endpoints: map[string]*llmtest.Client{}}
}

func (n *fakeNet) endpoint(baseURL string) *llmtest.Client {
	n.mu.Lock()
	defer n.mu.Unlock()
	c := n.endpoints[baseURL]
	if c == nil {
		c = llmtest.NewClient(n.t)
		n.endpoints[baseURL] = c
	}
	return c
}

func (n *fakeNet) on(baseURL string, steps ...step) *fakeNet {
	c := n.endpoint(baseURL)
	for _, s := range steps {
		if s.fn != nil {
			c.EnqueueFunc(s.fn)
		} else {
			c.Enqueue(s.reply)
		}
	}
	if last := steps[len(steps)-1]; last.fn != nil {
		c.HandleFunc(last.fn)
	} else {
		c.Handle(func(*llm.Request) llmtest.Reply { return last.reply })
	}
	return n
}

func (n *fakeNet) factory(mode llm.APIMode, o llm.Options) (llm.Client, error) {
	model := n.endpoint(o.BaseURL)
	return llm.ClientFunc(func(ctx context.Context, req *llm.Request, sink func(llm.Delta)) (*llm.Response, error) {
		c := call{endpoint: o.BaseURL, model: req.Model, apiKey: o.APIKey, mode: mode}
		if len(req.Messages) > 0 && req.Messages[0].Role == llm.RoleSystem {
			c.system = req.Messages[0].Content
		}
		n.mu.Lock()
		n.calls = append(n.calls, c)
		n.mu.Unlock()
		return model.Complete(ctx, req, sink)
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

func ok(text string) step { return step{reply: llmtest.Reply{Text: text}} }

func reply(r llmtest.Reply) step { return step{reply: r} }

func answer(fn llm.ClientFunc) step { return step{fn: fn} }

// failWith fails the call with err, as a transport returns it.
func failWith(err error) step {
	return answer(func(context.Context, *llm.Request, func(llm.Delta)) (*llm.Response, error) { return nil, err })
}

func fail(kind llm.ErrorKind, status int) step {
	return failWith(&llm.ProviderError{Kind: kind, StatusCode: status, Message: string(kind)})
}

func failAfter(kind llm.ErrorKind, retryAfter time.Duration) step {
	return failWith(&llm.ProviderError{Kind: kind, StatusCode: 429, Message: "slow down", RetryAfter: retryAfter})
}

// noResponse is a client breaking its contract: no response and no error.
func noResponse() step {
	return answer(func(context.Context, *llm.Request, func(llm.Delta)) (*llm.Response, error) { return nil, nil })
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
