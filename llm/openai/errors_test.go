package openai

import (
	"context"
	"errors"
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/hermes-go/hermes/llm"
)

func TestHTTPErrorsAreClassified(t *testing.T) {
	tests := []struct {
		name        string
		status      int
		header      map[string]string
		body        string
		kind        llm.ErrorKind
		retryAfter  time.Duration
		wantMessage string
	}{
		{
			name: "429 with Retry-After", status: 429,
			header: map[string]string{"Retry-After": "7", "Content-Type": "application/json"},
			body:   `{"error":{"message":"Rate limit reached for gpt-5","type":"requests","code":"rate_limit_exceeded"}}`,
			kind:   llm.ErrRateLimit, retryAfter: 7 * time.Second, wantMessage: "Rate limit reached for gpt-5",
		},
		{
			name: "429 with a plain-text body", status: 429,
			header: map[string]string{"Retry-After": "2"},
			body:   "slow down",
			kind:   llm.ErrRateLimit, retryAfter: 2 * time.Second, wantMessage: "slow down",
		},
		{
			name: "502 HTML page", status: 502, body: "<html>Bad Gateway</html>", kind: llm.ErrServer,
		},
		{
			name: "401", status: 401, body: `{"error":{"message":"Incorrect API key provided"}}`, kind: llm.ErrAuth,
			wantMessage: "Incorrect API key provided",
		},
		{
			name: "context overflow", status: 400,
			body: `{"error":{"message":"This model's maximum context length is 128000 tokens. However, your messages resulted in 130000 tokens.","code":"context_length_exceeded"}}`,
			kind: llm.ErrContextOverflow,
		},
	}
	for _, tt := range tests {
		for _, mode := range []string{"chat", "chat-nostream", "responses", "responses-nostream"} {
			t.Run(tt.name+"/"+mode, func(t *testing.T) {
				f := newFakeProvider(t, func(w http.ResponseWriter, r *http.Request) {
					for k, v := range tt.header {
						w.Header().Set(k, v)
					}
					w.WriteHeader(tt.status)
					io.WriteString(w, tt.body)
				})
				o := llm.Options{BaseURL: f.URL + "/v1", APIKey: "k", Provider: "openai", NoStream: mode == "chat-nostream" || mode == "responses-nostream"}
				var c llm.Client = NewChat(o)
				if mode == "responses" || mode == "responses-nostream" {
					c = NewResponses(o)
				}
				resp, err := c.Complete(context.Background(), simpleRequest(), nil)
				pe, ok := llm.AsProviderError(err)
				if !ok || resp != nil {
					t.Fatalf("got %v, %v; want a ProviderError", resp, err)
				}
				if pe.Kind != tt.kind || pe.StatusCode != tt.status || pe.Provider != "openai" {
					t.Errorf("kind %q status %d provider %q, want %q %d openai", pe.Kind, pe.StatusCode, pe.Provider, tt.kind, tt.status)
				}
				if pe.RetryAfter != tt.retryAfter {
					t.Errorf("RetryAfter %v, want %v", pe.RetryAfter, tt.retryAfter)
				}
				if tt.wantMessage != "" && pe.Message != tt.wantMessage {
					t.Errorf("message %q, want %q", pe.Message, tt.wantMessage)
				}
				if tt.kind == llm.ErrContextOverflow && pe.ContextLimit != 128000 {
					t.Errorf("context limit %d, want 128000", pe.ContextLimit)
				}
				if n := len(f.bodies); n != 1 {
					t.Errorf("server saw %d requests; the SDK must not retry", n)
				}
			})
		}
	}
}

func TestConnectionRefusedIsConnectionError(t *testing.T) {
	f := newFakeProvider(t, serveJSON("{}"))
	url := f.URL
	f.Close() // nothing listens there any more
	_, err := NewChat(llm.Options{BaseURL: url + "/v1"}).Complete(context.Background(), simpleRequest(), nil)
	pe, ok := llm.AsProviderError(err)
	if !ok || pe.Kind != llm.ErrConnection || !pe.Retryable() {
		t.Fatalf("err %v, want a retryable connection ProviderError", err)
	}
}

func TestCancelledBeforeCallReturnsContextError(t *testing.T) {
	f := newFakeProvider(t, serveSSE(sse(`{"choices":[{"index":0,"delta":{"content":"x"},"finish_reason":"stop"}]}`)))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	resp, err := chatClient(f, llm.Options{}).Complete(ctx, simpleRequest(), nil)
	if !errors.Is(err, context.Canceled) || resp != nil {
		t.Fatalf("got %v, %v; want context.Canceled", resp, err)
	}
}
