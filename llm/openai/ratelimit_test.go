package openai

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/hermes-go/hermes/llm"
	"github.com/hermes-go/hermes/llm/llmtest"
)

// The transport reads absolute reset times on the clock it was given.
func TestRateLimitResetIsReadOnTheTransportsClock(t *testing.T) {
	now := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	srv := llmtest.NewServer(t)
	srv.Enqueue(llmtest.Error(429, llmtest.OpenRouterRateLimitBody).WithHeader("X-RateLimit-Reset", fmt.Sprint(now.Add(42*time.Second).UnixMilli())))
	c := NewChat(llm.Options{BaseURL: srv.URL(), APIKey: "sk-test", Provider: "openrouter", Now: func() time.Time { return now }})
	_, err := c.Complete(context.Background(), simpleRequest(), nil)
	if pe, ok := llm.AsProviderError(err); !ok || pe.Kind != llm.ErrRateLimit || pe.RetryAfter != 42*time.Second {
		t.Fatalf("err %v, want a rate limit asking for 42s", err)
	}
}
