package llmtest_test

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/openai/openai-go/v3"

	"github.com/hermes-go/hermes/llm"
	"github.com/hermes-go/hermes/llm/llmtest"
)

// apiError extracts what the SDK saw of an HTTP error: status, raw body
// and headers.
func apiError(t *testing.T, err error) (int, string, http.Header) {
	t.Helper()
	var oe *openai.Error
	if errors.As(err, &oe) {
		// RawJSON holds only the inner error object; the dump has the body.
		_, body, _ := strings.Cut(string(oe.DumpResponse(true)), "\r\n\r\n")
		return oe.StatusCode, body, oe.Response.Header
	}
	var ae *anthropic.Error
	if errors.As(err, &ae) {
		var h http.Header
		if ae.Response != nil {
			h = ae.Response.Header
		}
		return ae.StatusCode, ae.RawJSON(), h
	}
	t.Fatalf("error %v (%T) is not an SDK API error", err, err)
	return 0, "", nil
}

func TestErrorRepliesReachTheClientWithStatusBodyAndHeaders(t *testing.T) {
	cases := []struct {
		status int
		body   string
	}{
		{429, llmtest.OpenAIRateLimitBody},
		{400, llmtest.AnthropicContextOverflowBody},
		{503, llmtest.OpenRouterOverloadedBody},
		{401, llmtest.OpenRouterUnauthorizedBody},
	}
	for _, c := range cases {
		for _, f := range formats {
			for _, stream := range []bool{false, true} {
				t.Run(fmt.Sprintf("%d/%s/stream=%v", c.status, f.name, stream), func(t *testing.T) {
					srv := llmtest.NewServer(t)
					srv.Enqueue(llmtest.Error(c.status, c.body).WithHeader("Retry-After", "2"))
					_, err := f.call(t.Context(), srv, stream)
					if err == nil {
						t.Fatal("call succeeded, want an error")
					}
					status, body, h := apiError(t, err)
					if status != c.status {
						t.Errorf("status = %d, want %d", status, c.status)
					}
					if compactJSON(t, body) != compactJSON(t, c.body) {
						t.Errorf("body = %s, want %s", body, c.body)
					}
					if h.Get("Retry-After") != "2" {
						t.Errorf("Retry-After = %q, want 2", h.Get("Retry-After"))
					}
					if r := srv.Requests()[0]; r.Status != c.status || r.Problem != "" {
						t.Errorf("recorded status %d problem %q, want %d and none", r.Status, r.Problem, c.status)
					}
				})
			}
		}
	}
}

func TestErrorWithoutBodyGetsTheProvidersBodyForTheFormat(t *testing.T) {
	cases := []struct {
		status int
		want   perFormat
	}{
		{400, perFormat{llmtest.OpenAIContextOverflowBody, llmtest.OpenAIContextOverflowBody, llmtest.AnthropicContextOverflowBody}},
		{401, perFormat{llmtest.OpenAIUnauthorizedBody, llmtest.OpenAIUnauthorizedBody, llmtest.AnthropicUnauthorizedBody}},
		{429, perFormat{llmtest.OpenAIRateLimitBody, llmtest.OpenAIRateLimitBody, llmtest.AnthropicRateLimitBody}},
		{500, perFormat{llmtest.OpenAIServerErrorBody, llmtest.OpenAIServerErrorBody, llmtest.AnthropicServerErrorBody}},
		{529, perFormat{llmtest.OpenAIOverloadedBody, llmtest.OpenAIOverloadedBody, llmtest.AnthropicOverloadedBody}},
	}
	for _, c := range cases {
		for i, f := range formats {
			t.Run(fmt.Sprintf("%d/%s", c.status, f.name), func(t *testing.T) {
				srv := llmtest.NewServer(t)
				srv.Enqueue(llmtest.Error(c.status, ""))
				_, err := f.call(t.Context(), srv, false)
				status, body, _ := apiError(t, err)
				if status != c.status || compactJSON(t, body) != compactJSON(t, c.want[i]) {
					t.Errorf("got %d %s, want %d %s", status, body, c.status, c.want[i])
				}
			})
		}
	}
}

// The bodies must be what real providers send, so classification code
// tested against them behaves as in production.
func TestErrorBodiesClassifyAsTheirStatusMeans(t *testing.T) {
	cases := []struct {
		name   string
		status int
		body   string
		kind   llm.ErrorKind
		limit  int
	}{
		{"openai overflow", 400, llmtest.OpenAIContextOverflowBody, llm.ErrContextOverflow, 128000},
		{"openai 401", 401, llmtest.OpenAIUnauthorizedBody, llm.ErrAuth, 0},
		{"openai 403", 403, llmtest.OpenAIForbiddenBody, llm.ErrAuth, 0},
		{"openai 429", 429, llmtest.OpenAIRateLimitBody, llm.ErrRateLimit, 0},
		{"openai quota", 429, llmtest.OpenAIQuotaBody, llm.ErrBilling, 0},
		{"openai 500", 500, llmtest.OpenAIServerErrorBody, llm.ErrServer, 0},
		{"openai 503", 503, llmtest.OpenAIOverloadedBody, llm.ErrServer, 0},
		{"anthropic overflow", 400, llmtest.AnthropicContextOverflowBody, llm.ErrContextOverflow, 200000},
		{"anthropic 401", 401, llmtest.AnthropicUnauthorizedBody, llm.ErrAuth, 0},
		{"anthropic 403", 403, llmtest.AnthropicForbiddenBody, llm.ErrAuth, 0},
		{"anthropic 429", 429, llmtest.AnthropicRateLimitBody, llm.ErrRateLimit, 0},
		{"anthropic 500", 500, llmtest.AnthropicServerErrorBody, llm.ErrServer, 0},
		{"anthropic 529", 529, llmtest.AnthropicOverloadedBody, llm.ErrServer, 0},
		{"openrouter overflow", 400, llmtest.OpenRouterContextOverflowBody, llm.ErrContextOverflow, 131072},
		{"openrouter 401", 401, llmtest.OpenRouterUnauthorizedBody, llm.ErrAuth, 0},
		{"openrouter 403", 403, llmtest.OpenRouterForbiddenBody, llm.ErrBilling, 0},
		{"openrouter 429", 429, llmtest.OpenRouterRateLimitBody, llm.ErrRateLimit, 0},
		{"openrouter 500", 500, llmtest.OpenRouterServerErrorBody, llm.ErrServer, 0},
		{"openrouter 503", 503, llmtest.OpenRouterOverloadedBody, llm.ErrServer, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := llm.ClassifyHTTP("test", c.status, nil, []byte(c.body), time.Time{})
			if e.Kind != c.kind {
				t.Errorf("kind = %s, want %s (message %q)", e.Kind, c.kind, e.Message)
			}
			if e.ContextLimit != c.limit {
				t.Errorf("context limit = %d, want %d", e.ContextLimit, c.limit)
			}
			if e.Message == "" || strings.HasPrefix(e.Message, "{") {
				t.Errorf("message %q was not read from the body", e.Message)
			}
		})
	}
}

func TestRequireKeyAnswers401LikeTheProvider(t *testing.T) {
	cases := []struct {
		name    string
		format  int // index in formats
		key     string
		wantMsg string // in the body; "" means the call succeeds
	}{
		{"openai wrong key", 0, "sk-wrong-key-123456", "Incorrect API key provided"},
		{"openai right key", 0, "sk-test", ""},
		{"responses wrong key", 1, "sk-wrong-key-123456", "invalid_api_key"},
		{"anthropic wrong key", 2, "sk-ant-wrong", "invalid x-api-key"},
		{"anthropic right key", 2, "sk-ant-test", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			srv := llmtest.NewServer(t)
			srv.RequireKey(c.key)
			srv.Enqueue(llmtest.Reply{Text: "ok"})
			// The SDK clients send sk-test / sk-ant-test.
			_, err := formats[c.format].call(t.Context(), srv, false)
			if c.wantMsg == "" {
				if err != nil {
					t.Fatalf("call with the right key failed: %v", err)
				}
				return
			}
			status, body, _ := apiError(t, err)
			if status != 401 || !strings.Contains(body, c.wantMsg) {
				t.Errorf("got %d %s, want 401 with %q", status, body, c.wantMsg)
			}
			if srv.Pending() != 1 {
				t.Errorf("a rejected request used a scripted reply")
			}
			if len(srv.Unexpected()) != 0 {
				t.Errorf("a rejected key counts as unexpected")
			}
		})
	}
}

func TestAnthropicKeyIsAcceptedAsXAPIKeyOrBearer(t *testing.T) {
	for _, header := range []string{"X-Api-Key", "Authorization"} {
		t.Run(header, func(t *testing.T) {
			srv := llmtest.NewServer(t)
			srv.RequireKey("sk-ant-secret")
			srv.Enqueue(llmtest.Reply{Text: "ok"})
			value := "sk-ant-secret"
			if header == "Authorization" {
				value = "Bearer " + value
			}
			resp := post(t, srv.AnthropicURL()+"/v1/messages", `{"model":"m","max_tokens":5,"messages":[{"role":"user","content":"hi"}]}`,
				"anthropic-version", "2023-06-01", header, value)
			if resp.StatusCode != 200 {
				t.Fatalf("status %d, want 200", resp.StatusCode)
			}
			if got := srv.Requests()[0].APIKey(); got != "sk-ant-secret" {
				t.Errorf("APIKey() = %q", got)
			}
		})
	}
}

func TestMissingKeyGetsTheMissingKeyMessage(t *testing.T) {
	srv := llmtest.NewServer(t)
	srv.RequireKey("sk-x")
	resp := post(t, srv.URL()+"/chat/completions", `{"model":"m","messages":[{"role":"user","content":"hi"}]}`)
	if body := readAll(t, resp); resp.StatusCode != 401 || !strings.Contains(body, "You didn't provide an API key") {
		t.Errorf("got %d %s", resp.StatusCode, body)
	}
	resp = post(t, srv.AnthropicURL()+"/v1/messages", `{"model":"m","max_tokens":5,"messages":[{"role":"user","content":"hi"}]}`, "anthropic-version", "2023-06-01")
	if body := readAll(t, resp); resp.StatusCode != 401 || !strings.Contains(body, "x-api-key header is required") {
		t.Errorf("got %d %s", resp.StatusCode, body)
	}
}
