package transport_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/hermes-go/hermes/llm/llmtest"
	"github.com/hermes-go/hermes/provider"
)

// Without Retry-After, the rate-limit reset headers set the wait: OpenAI's
// durations (the later one), OpenRouter's epoch milliseconds read on the
// chain's clock, capped like Retry-After.
func TestEndToEndRateLimitResetHeadersSetTheWait(t *testing.T) {
	now := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	epochMs := func(d time.Duration) string { return fmt.Sprint(now.Add(d).UnixMilli()) }
	for _, tt := range []struct {
		name  string
		reply llmtest.Reply
		want  time.Duration
	}{
		{"openai durations", llmtest.Error(429, llmtest.OpenAIRateLimitBody).
			WithHeader("x-ratelimit-reset-requests", "6m0s").WithHeader("x-ratelimit-reset-tokens", "1s"), 6 * time.Minute},
		{"openrouter epoch milliseconds", llmtest.Error(429, llmtest.OpenRouterRateLimitBody).
			WithHeader("X-RateLimit-Reset", epochMs(30*time.Second)), 30 * time.Second},
		{"a reset an hour away is capped", llmtest.Error(429, llmtest.OpenRouterRateLimitBody).
			WithHeader("X-RateLimit-Reset", epochMs(time.Hour)), provider.MaxWait},
	} {
		t.Run(tt.name, func(t *testing.T) {
			srv := llmtest.NewServer(t)
			srv.Enqueue(tt.reply, llmtest.Reply{Text: "ok"})
			rec := &recorder{}
			opts := rec.options()
			opts.Now = func() time.Time { return now }
			c := newChain(t, opts, chatEndpoint(srv, "openrouter", "x/y"))
			if _, err := c.Complete(context.Background(), userRequest(), nil); err != nil {
				t.Fatal(err)
			}
			if len(rec.waits) != 1 || rec.waits[0] != tt.want {
				t.Fatalf("waits %v, want [%s]", rec.waits, tt.want)
			}
		})
	}
}

// A primary whose rate limit resets later keeps the turns on the fallback
// until then.
func TestEndToEndPrimaryIsLeftAloneUntilItsRateLimitResets(t *testing.T) {
	now := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	clock := now
	primary := llmtest.NewServer(t)
	primary.Enqueue(llmtest.Error(429, llmtest.OpenRouterRateLimitBody).WithHeader("X-RateLimit-Reset", fmt.Sprint(now.Add(5*time.Minute).UnixMilli())))
	backup := llmtest.NewServer(t)
	backup.Enqueue(llmtest.Reply{Text: "from the backup"})
	rec := &recorder{}
	opts := rec.options()
	opts.Now = func() time.Time { return clock }
	c := newChain(t, opts, chatEndpoint(primary, "openrouter", "x/y"), chatEndpoint(backup, "openai", "gpt-4o"))
	if _, err := c.Complete(context.Background(), userRequest(), nil); err != nil {
		t.Fatal(err)
	}
	clock = now.Add(4 * time.Minute)
	if c.ResetTurn() {
		t.Fatal("back on the primary before its rate limit reset")
	}
	clock = now.Add(5*time.Minute + time.Second)
	if !c.ResetTurn() {
		t.Fatal("not back on the primary after its rate limit reset")
	}
}
