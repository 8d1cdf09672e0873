package anthropic

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/hermes-go/hermes/llm"
	"github.com/hermes-go/hermes/llm/llmtest"
)

// The transport reads an HTTP-date Retry-After on the clock it was given.
func TestRetryAfterDateIsReadOnTheTransportsClock(t *testing.T) {
	now := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	srv := llmtest.NewServer(t)
	srv.Enqueue(llmtest.Error(429, "").WithHeader("Retry-After", now.Add(40*time.Second).Format(http.TimeFormat)))
	c := New(llm.Options{BaseURL: srv.AnthropicURL(), APIKey: "sk-ant-test", Now: func() time.Time { return now }})
	_, err := c.Complete(context.Background(), &llm.Request{Model: "claude-test", Messages: []llm.Message{llm.User("hi")}}, nil)
	if pe, ok := llm.AsProviderError(err); !ok || pe.Kind != llm.ErrRateLimit || pe.RetryAfter != 40*time.Second {
		t.Fatalf("err %v, want a rate limit asking for 40s", err)
	}
}
