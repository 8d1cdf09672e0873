package transport_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/hermes-go/hermes/llm"
	"github.com/hermes-go/hermes/llm/llmtest"
	"github.com/hermes-go/hermes/prompt"
	"github.com/hermes-go/hermes/provider"
	"github.com/hermes-go/hermes/provider/transport"
)

// recorder collects waits and events; its Sleep never sleeps. Its chains
// rewrite a fallback's system prompt as the runtime's do.
type recorder struct {
	waits     []time.Duration
	retries   []provider.RetryEvent
	fallbacks []provider.FallbackEvent
}

func (r *recorder) options() provider.ChainOptions {
	return provider.ChainOptions{
		Factory:    transport.New,
		Sleep:      func(ctx context.Context, d time.Duration) error { r.waits = append(r.waits, d); return ctx.Err() },
		Rand:       func() float64 { return 0 },
		OnRetry:    func(e provider.RetryEvent) { r.retries = append(r.retries, e) },
		OnFallback: func(e provider.FallbackEvent) { r.fallbacks = append(r.fallbacks, e) },

		RewriteSystem: prompt.RewriteIdentity,
	}
}

func newChain(t *testing.T, opts provider.ChainOptions, eps ...provider.Endpoint) *provider.Chain {
	t.Helper()
	c, err := provider.NewChain(eps, opts)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func userRequest() *llm.Request {
	return &llm.Request{Messages: []llm.Message{
		llm.System("You are Hermes.\nModel: primary-model\nProvider: primary\nBe brief."),
		llm.User("hi"),
	}}
}

// These tests run the Chain through the real transports against the fake
// provider server: real HTTP, real error bodies, real classification.

func chatEndpoint(srv *llmtest.Server, name, model string) provider.Endpoint {
	return provider.Endpoint{Provider: name, Model: model, BaseURL: srv.URL(), APIKey: "sk-test", APIMode: llm.ChatCompletions}
}

func anthropicEndpoint(srv *llmtest.Server, model string) provider.Endpoint {
	return provider.Endpoint{Provider: "anthropic", Model: model, BaseURL: srv.AnthropicURL(), APIKey: "sk-ant-test", APIMode: llm.AnthropicMessages}
}

func TestEndToEndRateLimitFallsBackFromOpenRouterToAnthropic(t *testing.T) {
	or := llmtest.NewServer(t)
	or.Enqueue(llmtest.Error(429, llmtest.OpenRouterRateLimitBody))
	ant := llmtest.NewServer(t)
	ant.Enqueue(llmtest.Reply{Text: "Hello from Claude."})

	rec := &recorder{}
	c := newChain(t, rec.options(), chatEndpoint(or, "openrouter", "deepseek/deepseek-chat-v3-0324:free"), anthropicEndpoint(ant, "claude-haiku-4-5"))
	var streamed strings.Builder
	resp, err := c.Complete(context.Background(), userRequest(), func(d llm.Delta) {
		if d.Kind == llm.DeltaText {
			streamed.WriteString(d.Text)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	if resp.Message.Content != "Hello from Claude." || streamed.String() != "Hello from Claude." {
		t.Fatalf("answer %q, streamed %q", resp.Message.Content, streamed.String())
	}
	if len(rec.fallbacks) != 1 || len(rec.waits) != 0 {
		t.Fatalf("fallbacks %d, waits %v", len(rec.fallbacks), rec.waits)
	}
	pe, _ := llm.AsProviderError(rec.fallbacks[0].Err)
	if pe == nil || pe.Kind != llm.ErrRateLimit || !strings.Contains(pe.Message, "Chutes") {
		t.Fatalf("fallback reason = %v", rec.fallbacks[0].Err)
	}
	reqs := ant.Requests()
	if len(reqs) != 1 || reqs[0].Model != "claude-haiku-4-5" {
		t.Fatalf("anthropic requests: %d, model %q", len(reqs), reqs[0].Model)
	}
	if sys := reqs[0].System(); !strings.Contains(sys, "Model: claude-haiku-4-5\nProvider: anthropic") {
		t.Fatalf("system prompt sent to the fallback: %q", sys)
	}
}

func TestEndToEndOverloadedAnthropicIsRetriedWithBackoff(t *testing.T) {
	ant := llmtest.NewServer(t)
	ant.Enqueue(
		llmtest.Error(529, llmtest.AnthropicOverloadedBody),
		llmtest.Reply{CutAfter: 2, StreamError: llmtest.AnthropicOverloadedBody},
		llmtest.Reply{Text: "Third time lucky."},
	)
	rec := &recorder{}
	c := newChain(t, rec.options(), anthropicEndpoint(ant, "claude-sonnet-4-5"))
	resp, err := c.Complete(context.Background(), userRequest(), func(llm.Delta) {})
	if err != nil {
		t.Fatal(err)
	}
	if resp.Message.Content != "Third time lucky." {
		t.Fatalf("answer %q", resp.Message.Content)
	}
	if len(rec.retries) != 2 || rec.retries[0].Err.Kind != llm.ErrServer || rec.retries[1].Err.Kind != llm.ErrServer {
		t.Fatalf("retries = %+v", rec.retries)
	}
	if rec.waits[0] != 2*time.Second || rec.waits[1] != 4*time.Second {
		t.Fatalf("waits = %v", rec.waits)
	}
}

func TestEndToEndRetryAfterHeaderIsHonoured(t *testing.T) {
	srv := llmtest.NewServer(t)
	srv.Enqueue(
		llmtest.Error(429, llmtest.OpenAIRateLimitBody).WithHeader("Retry-After", "3"),
		llmtest.Error(429, llmtest.OpenAIRateLimitBody),
		llmtest.Reply{Text: "ok"},
	)
	rec := &recorder{}
	c := newChain(t, rec.options(), chatEndpoint(srv, "openai", "gpt-4o"))
	if _, err := c.Complete(context.Background(), userRequest(), nil); err != nil {
		t.Fatal(err)
	}
	// The header first, then the "try again in 1.3s" of the message.
	if len(rec.waits) != 2 || rec.waits[0] != 3*time.Second || rec.waits[1] != 1300*time.Millisecond {
		t.Fatalf("waits = %v", rec.waits)
	}
}

func TestEndToEndContextOverflowReachesTheCallerWithItsLimit(t *testing.T) {
	for name, tc := range map[string]struct {
		body  string
		limit int
		ant   bool
	}{
		"openai":     {llmtest.OpenAIContextOverflowBody, 128000, false},
		"openrouter": {llmtest.OpenRouterContextOverflowBody, 131072, false},
		"anthropic":  {llmtest.AnthropicContextOverflowBody, 200000, true},
	} {
		t.Run(name, func(t *testing.T) {
			srv := llmtest.NewServer(t)
			srv.Enqueue(llmtest.Error(400, tc.body))
			backup := llmtest.NewServer(t)
			ep := chatEndpoint(srv, name, "m")
			if tc.ant {
				ep = anthropicEndpoint(srv, "claude-sonnet-4-5")
			}
			rec := &recorder{}
			c := newChain(t, rec.options(), ep, chatEndpoint(backup, "openai", "gpt-4o"))
			_, err := c.Complete(context.Background(), userRequest(), nil)
			pe, ok := llm.AsProviderError(err)
			if !ok || !pe.IsContextOverflow() || pe.ContextLimit != tc.limit {
				t.Fatalf("err = %v", err)
			}
			if len(srv.Requests()) != 1 || len(backup.Requests()) != 0 {
				t.Fatal("an overflow was retried or fell back")
			}
		})
	}
}

func TestEndToEndUnauthorizedRefreshesTheKey(t *testing.T) {
	srv := llmtest.NewServer(t)
	srv.RequireKey("sk-rotated")
	srv.Enqueue(llmtest.Reply{Text: "authorised"})
	ep := chatEndpoint(srv, "openrouter", "x/y")
	// The key came from a key command whose token has since been rotated.
	ep.APIKey, ep.KeyCmd = "sk-stale", "vault read openrouter"

	rec := &recorder{}
	opts := rec.options()
	runs := 0
	opts.Resolver = provider.Resolver{RunKeyCmd: func(ctx context.Context, cmd string) (string, error) {
		runs++
		return "sk-rotated", nil
	}}
	c := newChain(t, opts, ep)
	resp, err := c.Complete(context.Background(), userRequest(), nil)
	if err != nil || resp.Message.Content != "authorised" {
		t.Fatalf("resp %v err %v", resp, err)
	}
	reqs := srv.Requests()
	if len(reqs) != 2 || reqs[0].Status != 401 || reqs[0].APIKey() != "sk-stale" || reqs[1].APIKey() != "sk-rotated" {
		t.Fatalf("requests: %d", len(reqs))
	}
	if runs != 1 || len(rec.retries) != 1 || !rec.retries[0].CredentialRefresh {
		t.Fatalf("key command runs %d, retries %+v", runs, rec.retries)
	}
}

func TestEndToEndResponsesModeForGPT5(t *testing.T) {
	srv := llmtest.NewServer(t)
	srv.Enqueue(llmtest.Reply{Text: "via responses"})
	ep, err := provider.Resolve(provider.Config{Provider: "openai", Model: "gpt-5", BaseURL: "https://api.openai.com/v1"},
		func(k string) string { return map[string]string{"OPENAI_API_KEY": "sk-1"}[k] })
	if err != nil {
		t.Fatal(err)
	}
	if ep.APIMode != llm.CodexResponses {
		t.Fatalf("mode = %s", ep.APIMode)
	}
	ep.BaseURL = srv.URL() // same mode, local server
	c := newChain(t, provider.ChainOptions{Factory: transport.New}, ep)
	resp, err := c.Complete(context.Background(), userRequest(), nil)
	if err != nil || resp.Message.Content != "via responses" {
		t.Fatalf("resp %v err %v", resp, err)
	}
	if f := srv.Requests()[0].Format; f != llm.CodexResponses {
		t.Fatalf("server saw %s", f)
	}
}

func TestNewCoversEveryMode(t *testing.T) {
	for _, m := range []llm.APIMode{llm.ChatCompletions, llm.CodexResponses, llm.AnthropicMessages} {
		if c, err := transport.New(m, llm.Options{BaseURL: "http://127.0.0.1:1"}); err != nil || c == nil {
			t.Errorf("%s: %v", m, err)
		}
	}
	if _, err := transport.New("bedrock_converse", llm.Options{}); err == nil {
		t.Error("unknown mode accepted")
	}
}
