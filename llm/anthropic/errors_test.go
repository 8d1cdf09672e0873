package anthropic

import (
	"context"
	"errors"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/hermes-go/hermes/llm"
)

func TestHTTPErrorsAreClassifiedFromTheRealBody(t *testing.T) {
	tests := []struct {
		name       string
		status     int
		header     map[string]string
		body       string
		kind       llm.ErrorKind
		retryAfter time.Duration
		limit      int
		retryable  bool
	}{
		{
			name: "429 rate limit with retry-after", status: 429,
			header: map[string]string{"retry-after": "30", "anthropic-ratelimit-input-tokens-remaining": "0"},
			body:   `{"type":"error","error":{"type":"rate_limit_error","message":"This request would exceed the rate limit for your organization of 50,000 input tokens per minute. For details, refer to: https://docs.claude.com/en/api/rate-limits."},"request_id":"req_011CUH3y3yFz7Pz3j8mMkBfw"}`,
			kind:   llm.ErrRateLimit, retryAfter: 30 * time.Second, retryable: true,
		},
		{
			name: "401 invalid key", status: 401,
			body: `{"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"},"request_id":"req_011CUH41nQ9xaK3rRf8bYV6s"}`,
			kind: llm.ErrAuth,
		},
		{
			name: "400 prompt too long", status: 400,
			body:  `{"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long: 210000 tokens > 200000 maximum"},"request_id":"req_011CUH4pNqKJf5V8b3a8u9Wx"}`,
			kind:  llm.ErrContextOverflow,
			limit: 200000,
		},
		{
			name: "413 request too large", status: 413,
			body: `{"type":"error","error":{"type":"request_too_large","message":"Request exceeds the maximum allowed number of bytes."}}`,
			kind: llm.ErrContextOverflow,
		},
		{
			name: "400 output cap is not an overflow", status: 400,
			body: `{"type":"error","error":{"type":"invalid_request_error","message":"max_tokens: 100000 > 64000, which is the maximum allowed number of output tokens for claude-sonnet-4-20250514"}}`,
			kind: llm.ErrBadRequest,
		},
		{
			name: "529 overloaded", status: 529,
			body: `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"},"request_id":"req_011CUH5m1pA7dE2t4Y9kLq3z"}`,
			kind: llm.ErrServer, retryable: true,
		},
		{
			name: "500 api error", status: 500,
			body: `{"type":"error","error":{"type":"api_error","message":"Internal server error"}}`,
			kind: llm.ErrServer, retryable: true,
		},
	}
	for _, tt := range tests {
		for _, noStream := range []bool{false, true} {
			name := tt.name
			if noStream {
				name += " (not streamed)"
			}
			t.Run(name, func(t *testing.T) {
				header := map[string]string{"Content-Type": "application/json", "request-id": "req_x"}
				for k, v := range tt.header {
					header[k] = v
				}
				srv := newFakeServer(t, reply{status: tt.status, header: header, body: tt.body}, reply{body: textStream("retried")})
				c := New(llm.Options{BaseURL: srv.URL, HTTPClient: srv.Client(), NoStream: noStream})
				resp, err := c.Complete(t.Context(), &llm.Request{Model: "m", Messages: []llm.Message{llm.User("hi")}}, nil)
				if resp != nil {
					t.Fatalf("response %+v returned with an error status", resp)
				}
				pe, ok := llm.AsProviderError(err)
				if !ok {
					t.Fatalf("error %v (%T) is not a ProviderError", err, err)
				}
				if pe.Kind != tt.kind || pe.StatusCode != tt.status {
					t.Errorf("kind %s status %d, want %s %d (%v)", pe.Kind, pe.StatusCode, tt.kind, tt.status, pe)
				}
				if pe.RetryAfter != tt.retryAfter {
					t.Errorf("retry after %v, want %v", pe.RetryAfter, tt.retryAfter)
				}
				if pe.ContextLimit != tt.limit {
					t.Errorf("context limit %d, want %d", pe.ContextLimit, tt.limit)
				}
				if pe.Retryable() != tt.retryable {
					t.Errorf("retryable %v, want %v", pe.Retryable(), tt.retryable)
				}
				if pe.Body != tt.body || pe.Message == "" || !strings.Contains(tt.body, pe.Message) {
					t.Errorf("body %q / message %q do not come from the response", pe.Body, pe.Message)
				}
				if pe.Provider != "anthropic" {
					t.Errorf("provider %q", pe.Provider)
				}
				if srv.requests != 1 {
					t.Errorf("%d requests sent; retrying is the caller's decision", srv.requests)
				}
			})
		}
	}
}

func TestErrorEventInsideStreamIsClassifiedByItsType(t *testing.T) {
	body := sse(
		msgStart(`{"input_tokens":10,"output_tokens":1}`),
		blockStart(0, `{"type":"text","text":""}`),
		blockDelta(0, `{"type":"text_delta","text":"partial"}`),
	) + "event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}\n\n"
	srv := newFakeServer(t, reply{body: body})
	c := New(llm.Options{BaseURL: srv.URL, HTTPClient: srv.Client()})
	resp, err := c.Complete(t.Context(), &llm.Request{Model: "m", Messages: []llm.Message{llm.User("hi")}}, nil)
	if resp != nil {
		t.Fatal("partial response returned from a failed stream")
	}
	pe, ok := llm.AsProviderError(err)
	if !ok || pe.Kind != llm.ErrServer || !pe.Retryable() || pe.Message != "Overloaded" {
		t.Fatalf("error %v, want a retryable server error saying Overloaded", err)
	}
}

func TestStreamCutBeforeTheEndIsAConnectionError(t *testing.T) {
	body := sse(
		msgStart(`{"input_tokens":10,"output_tokens":1}`),
		blockStart(0, `{"type":"text","text":""}`),
		blockDelta(0, `{"type":"text_delta","text":"half an ans"}`),
	)
	srv := newFakeServer(t, reply{body: body})
	c := New(llm.Options{BaseURL: srv.URL, HTTPClient: srv.Client()})
	resp, err := c.Complete(t.Context(), &llm.Request{Model: "m", Messages: []llm.Message{llm.User("hi")}}, nil)
	pe, ok := llm.AsProviderError(err)
	if resp != nil || !ok || pe.Kind != llm.ErrConnection {
		t.Fatalf("got %v, %v; want no response and a connection error", resp, err)
	}
}

func TestUnreachableEndpointIsAConnectionError(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close() // nothing listens there any more
	c := New(llm.Options{BaseURL: "http://" + addr})
	_, err = c.Complete(t.Context(), &llm.Request{Model: "m", Messages: []llm.Message{llm.User("hi")}}, nil)
	pe, ok := llm.AsProviderError(err)
	if !ok || pe.Kind != llm.ErrConnection {
		t.Fatalf("error %v, want a connection error", err)
	}
}

func TestCancelMidStreamReturnsContextErrorAndNoResponse(t *testing.T) {
	for _, tt := range []struct {
		name     string
		noStream bool
	}{{"streamed", false}, {"not streamed", true}} {
		t.Run(tt.name, func(t *testing.T) {
			hold := make(chan struct{})
			t.Cleanup(func() { close(hold) })
			flushed := make(chan struct{})
			body := sse(
				msgStart(`{"input_tokens":10,"output_tokens":1}`),
				blockStart(0, `{"type":"text","text":""}`),
				blockDelta(0, `{"type":"text_delta","text":"first words"}`),
			)
			if tt.noStream {
				body = `{"id":"msg_1","type":"message","role":"assistant","content":[{"type":"text","text":"never finis`
			}
			srv := newFakeServer(t, reply{body: body, hold: hold, flushed: flushed, header: map[string]string{"Content-Type": contentType(tt.noStream)}})
			c := New(llm.Options{BaseURL: srv.URL, HTTPClient: srv.Client(), NoStream: tt.noStream})
			ctx, cancel := context.WithCancel(t.Context())
			defer cancel()
			var got []string
			sink := func(d llm.Delta) {
				got = append(got, d.Text)
				cancel() // the user interrupts as soon as text shows
			}
			if tt.noStream {
				go func() { <-flushed; cancel() }()
			}
			resp, err := c.Complete(ctx, &llm.Request{Model: "m", Messages: []llm.Message{llm.User("hi")}}, sink)
			if resp != nil {
				t.Fatalf("partial response %+v returned after cancel", resp)
			}
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("error %v, want context.Canceled", err)
			}
			if _, isProvider := llm.AsProviderError(err); isProvider {
				t.Fatal("an interrupt was reported as a provider failure")
			}
			if !tt.noStream && (len(got) == 0 || got[0] != "first words") {
				t.Fatalf("deltas before cancel = %q", got)
			}
		})
	}
}

func contentType(noStream bool) string {
	if noStream {
		return "application/json"
	}
	return "text/event-stream"
}
