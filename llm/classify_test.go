package llm

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The bodies below are the error bodies the real APIs return, verbatim
// apart from shortened ids.
func TestClassifyHTTPRealErrorBodies(t *testing.T) {
	tests := []struct {
		name      string
		provider  string
		status    int
		header    http.Header
		body      string
		kind      ErrorKind
		limit     int
		retry     time.Duration
		retryable bool
		msgHas    string
	}{
		{
			name: "openai chat context length exceeded", provider: "openai", status: 400,
			body: `{"error":{"message":"This model's maximum context length is 128000 tokens. However, your messages resulted in 130532 tokens. Please reduce the length of the messages.","type":"invalid_request_error","param":"messages","code":"context_length_exceeded"}}`,
			kind: ErrContextOverflow, limit: 128000, msgHas: "maximum context length",
		},
		{
			name: "openai completion-inclusive overflow", provider: "openai", status: 400,
			body: `{"error":{"message":"This model's maximum context length is 16385 tokens. However, you requested 17000 tokens (13000 in the messages, 4000 in the completion). Please reduce the length of the messages or completion.","type":"invalid_request_error","param":"messages","code":"context_length_exceeded"}}`,
			kind: ErrContextOverflow, limit: 16385,
		},
		{
			name: "openai responses context window exceeded", provider: "openai", status: 400,
			body: `{"error":{"message":"Your input exceeds the context window of this model. Please adjust your input and try again.","type":"invalid_request_error","param":"input","code":"context_length_exceeded"}}`,
			kind: ErrContextOverflow, limit: 0,
		},
		{
			name: "openai invalid api key", provider: "openai", status: 401,
			body: `{"error":{"message":"Incorrect API key provided: sk-proj-****abcd. You can find your API key at https://platform.openai.com/account/api-keys.","type":"invalid_request_error","param":null,"code":"invalid_api_key"}}`,
			kind: ErrAuth, msgHas: "Incorrect API key",
		},
		{
			name: "openai rate limit with retry-after-ms", provider: "openai", status: 429,
			header: http.Header{"Retry-After-Ms": {"1500"}, "Retry-After": {"2"}},
			body:   `{"error":{"message":"Rate limit reached for gpt-4o in organization org-abc on requests per min (RPM): Limit 500, Used 500, Requested 1. Please try again in 120ms. Visit https://platform.openai.com/account/rate-limits to learn more.","type":"requests","param":null,"code":"rate_limit_exceeded"}}`,
			kind:   ErrRateLimit, retry: 1500 * time.Millisecond, retryable: true,
		},
		{
			name: "openai rate limit hint from message when no header", provider: "openai", status: 429,
			body: `{"error":{"message":"Rate limit reached for gpt-4o in organization org-abc on tokens per min (TPM): Limit 30000, Used 29000, Requested 2500. Please try again in 1.414s. Visit https://platform.openai.com/account/rate-limits to learn more.","type":"tokens","param":null,"code":"rate_limit_exceeded"}}`,
			kind: ErrRateLimit, retry: 1414 * time.Millisecond, retryable: true,
		},
		{
			name: "openai request too large for TPM is a rate limit", provider: "openai", status: 429,
			body: `{"error":{"message":"Request too large for gpt-4o in organization org-abc on tokens per min (TPM): Limit 30000, Requested 45000. The input or output tokens must be reduced in order to run successfully. Visit https://platform.openai.com/account/rate-limits to learn more.","type":"tokens","param":null,"code":"rate_limit_exceeded"}}`,
			kind: ErrRateLimit, retryable: true,
		},
		{
			name: "openai insufficient quota is billing", provider: "openai", status: 429,
			body: `{"error":{"message":"You exceeded your current quota, please check your plan and billing details. For more information on this error, read the docs: https://platform.openai.com/docs/guides/error-codes/api-errors.","type":"insufficient_quota","param":null,"code":"insufficient_quota"}}`,
			kind: ErrBilling,
		},
		{
			name: "openai server error", provider: "openai", status: 500,
			body: `{"error":{"message":"The server had an error while processing your request. Sorry about that!","type":"server_error","param":null,"code":null}}`,
			kind: ErrServer, retryable: true,
		},
		{
			name: "openai engine overloaded", provider: "openai", status: 503,
			body: `{"error":{"message":"The engine is currently overloaded, please try again later","type":"server_error","param":null,"code":null}}`,
			kind: ErrServer, retryable: true,
		},
		{
			name: "openai model not found", provider: "openai", status: 404,
			body: "{\"error\":{\"message\":\"The model `gpt-9` does not exist or you do not have access to it.\",\"type\":\"invalid_request_error\",\"param\":null,\"code\":\"model_not_found\"}}",
			kind: ErrModelNotFound,
		},
		{
			name: "openai unknown parameter", provider: "openai", status: 400,
			body: `{"error":{"message":"Unrecognized request argument supplied: foo","type":"invalid_request_error","param":null,"code":null}}`,
			kind: ErrBadRequest,
		},
		{
			name: "openai max_tokens too large is not an overflow", provider: "openai", status: 400,
			body: `{"error":{"message":"max_tokens is too large: 100000. This model supports at most 16384 completion tokens, whereas you provided 100000.","type":"invalid_request_error","param":"max_tokens","code":"invalid_value"}}`,
			kind: ErrBadRequest,
		},
		{
			name: "openai safety system rejection", provider: "openai", status: 400,
			body: `{"error":{"message":"Your request was rejected as a result of our safety system. Your prompt may contain text that is not allowed by our safety system.","type":"invalid_request_error","param":null,"code":"content_policy_violation"}}`,
			kind: ErrContentFilter,
		},
		{
			name: "azure content filter", provider: "azure", status: 400,
			body: `{"error":{"message":"The response was filtered due to the prompt triggering Azure OpenAI's content management policy. Please modify your prompt and retry.","type":null,"param":"prompt","code":"content_filter","status":400}}`,
			kind: ErrContentFilter,
		},
		{
			name: "anthropic prompt too long", provider: "anthropic", status: 400,
			body: `{"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long: 208310 tokens > 200000 maximum"}}`,
			kind: ErrContextOverflow, limit: 200000, msgHas: "prompt is too long",
		},
		{
			name: "anthropic input plus max_tokens exceeds context", provider: "anthropic", status: 400,
			body: "{\"type\":\"error\",\"error\":{\"type\":\"invalid_request_error\",\"message\":\"input length and `max_tokens` exceed context limit: 197845 + 21333 > 200000, decrease input length or `max_tokens` and try again\"}}",
			kind: ErrContextOverflow, limit: 200000,
		},
		{
			name: "anthropic invalid x-api-key", provider: "anthropic", status: 401,
			body: `{"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"}}`,
			kind: ErrAuth, msgHas: "invalid x-api-key",
		},
		{
			name: "anthropic permission error", provider: "anthropic", status: 403,
			body: `{"type":"error","error":{"type":"permission_error","message":"Your API key does not have permission to use the specified resource."}}`,
			kind: ErrAuth,
		},
		{
			name: "anthropic unknown model", provider: "anthropic", status: 404,
			body: `{"type":"error","error":{"type":"not_found_error","message":"model: claude-3-opus-99"}}`,
			kind: ErrModelNotFound,
		},
		{
			name: "anthropic request too large", provider: "anthropic", status: 413,
			body: `{"type":"error","error":{"type":"request_too_large","message":"Request exceeds the maximum allowed number of bytes."}}`,
			kind: ErrContextOverflow,
		},
		{
			name: "anthropic rate limit honours retry-after seconds", provider: "anthropic", status: 429,
			header: http.Header{"Retry-After": {"17"}},
			body:   `{"type":"error","error":{"type":"rate_limit_error","message":"This request would exceed the rate limit for your organization (abc) of 50,000 input tokens per minute. For details, refer to: https://docs.claude.com/en/api/rate-limits."}}`,
			kind:   ErrRateLimit, retry: 17 * time.Second, retryable: true,
		},
		{
			name: "anthropic retry-after is capped", provider: "anthropic", status: 429,
			header: http.Header{"Retry-After": {"86400"}},
			body:   `{"type":"error","error":{"type":"rate_limit_error","message":"Number of request tokens has exceeded your daily rate limit"}}`,
			kind:   ErrRateLimit, retry: MaxRetryAfter, retryable: true,
		},
		{
			name: "anthropic internal error", provider: "anthropic", status: 500,
			body: `{"type":"error","error":{"type":"api_error","message":"Internal server error"}}`,
			kind: ErrServer, retryable: true,
		},
		{
			name: "anthropic 529 overloaded", provider: "anthropic", status: 529,
			body: `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`,
			kind: ErrServer, retryable: true, msgHas: "Overloaded",
		},
		{
			name: "anthropic credit balance too low", provider: "anthropic", status: 400,
			body: `{"type":"error","error":{"type":"invalid_request_error","message":"Your credit balance is too low to access the Anthropic API. Please go to Plans & Billing to upgrade or purchase credits."}}`,
			kind: ErrBilling,
		},
		{
			name: "anthropic overloaded inside a stream", provider: "anthropic", status: 0,
			body: `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`,
			kind: ErrServer, retryable: true,
		},
		{
			name: "openrouter no auth credentials", provider: "openrouter", status: 401,
			body: `{"error":{"message":"No auth credentials found","code":401}}`,
			kind: ErrAuth, msgHas: "No auth credentials found",
		},
		{
			name: "openrouter needs more credits", provider: "openrouter", status: 402,
			body: `{"error":{"message":"This request requires more credits, or fewer max_tokens. You requested up to 16384 tokens, but can only afford 3017. To increase, visit https://openrouter.ai/settings/credits and upgrade to a paid account","code":402}}`,
			kind: ErrBilling,
		},
		{
			name: "openrouter upstream rate limit", provider: "openrouter", status: 429,
			body: `{"error":{"message":"Provider returned error","code":429,"metadata":{"raw":"google/gemini-2.0-flash-exp:free is temporarily rate-limited upstream. Please retry shortly, or add your own key to accumulate your rate limits: https://openrouter.ai/settings/integrations","provider_name":"Google AI Studio"}}}`,
			kind: ErrRateLimit, retryable: true, msgHas: "Provider returned error (Google AI Studio): google/gemini-2.0-flash-exp:free is temporarily rate-limited",
		},
		{
			name: "openrouter free tier daily limit", provider: "openrouter", status: 429,
			body: `{"error":{"message":"Rate limit exceeded: free-models-per-day. Add 10 credits to unlock 1000 free model requests per day","code":429,"metadata":{"headers":{"X-RateLimit-Limit":"50","X-RateLimit-Remaining":"0","X-RateLimit-Reset":"1741305600000"},"provider_name":null}}}`,
			kind: ErrRateLimit, retryable: true,
		},
		{
			name: "openrouter endpoint context length", provider: "openrouter", status: 400,
			body: `{"error":{"message":"This endpoint's maximum context length is 131072 tokens. However, you requested about 140000 tokens (136000 of text input, 4000 in the output). Please reduce the length of either one, or use the \"middle-out\" transform to compress your prompt automatically.","code":400,"metadata":{"provider_name":null}}}`,
			kind: ErrContextOverflow, limit: 131072,
		},
		{
			name: "openrouter forwards anthropic overflow in metadata.raw", provider: "openrouter", status: 400,
			body: `{"error":{"message":"Provider returned error","code":400,"metadata":{"raw":"{\"type\":\"error\",\"error\":{\"type\":\"invalid_request_error\",\"message\":\"prompt is too long: 210000 tokens > 200000 maximum\"}}","provider_name":"Anthropic"}}}`,
			kind: ErrContextOverflow, limit: 200000, msgHas: "(Anthropic): prompt is too long",
		},
		{
			name: "openrouter upstream 502", provider: "openrouter", status: 502,
			body: `{"error":{"message":"Provider returned error","code":502,"metadata":{"raw":"upstream connect error","provider_name":"Together"}}}`,
			kind: ErrServer, retryable: true,
		},
		{
			name: "openrouter moderation 403 is a content block, not auth", provider: "openrouter", status: 403,
			body: `{"error":{"message":"openai/gpt-4o requires moderation on OpenAI. Your input was flagged for \"harassment\". No credits were charged.","code":403,"metadata":{"reasons":["harassment"],"flagged_input":"...","provider_name":"OpenAI","model_slug":"openai/gpt-4o"}}}`,
			kind: ErrContentFilter,
		},
		{
			name: "openrouter key limit exceeded is billing", provider: "openrouter", status: 403,
			body: `{"error":{"message":"Key limit exceeded (total limit). Manage it using https://openrouter.ai/settings/keys","code":403}}`,
			kind: ErrBilling,
		},
		{
			name: "openrouter timeout", provider: "openrouter", status: 408,
			body: `{"error":{"message":"Request timed out","code":408}}`,
			kind: ErrTimeout, retryable: true,
		},
		{
			name: "openrouter mid-stream error chunk", provider: "openrouter", status: 200,
			body: `{"error":{"code":502,"message":"Upstream provider disconnected"}}`,
			kind: ErrServer, retryable: true,
		},
		{
			name: "vllm top-level overflow", provider: "custom", status: 400,
			body: `{"object":"error","message":"This model's maximum context length is 32768 tokens. However, you requested 40000 tokens (39000 in the messages, 1000 in the completion). Please reduce the length of the messages or completion.","type":"BadRequestError","param":null,"code":400}`,
			kind: ErrContextOverflow, limit: 32768,
		},
		{
			name: "llama.cpp exceeds context size", provider: "custom", status: 400,
			body: `{"error":{"code":400,"message":"the request exceeds the available context size, try increasing it","type":"exceed_context_size_error","n_prompt_tokens":5000,"n_ctx":4096}}`,
			kind: ErrContextOverflow, limit: 4096,
		},
		{
			name: "gemini array-wrapped token count overflow", provider: "gemini", status: 400,
			body: `[{"error":{"code":400,"message":"The input token count (1200000) exceeds the maximum number of tokens allowed (1048576).","status":"INVALID_ARGUMENT"}}]`,
			kind: ErrContextOverflow, limit: 1048576,
		},
		{
			name: "ollama string error", provider: "ollama", status: 404,
			body: `{"error":"model \"llama9\" not found, try pulling it first"}`,
			kind: ErrModelNotFound, msgHas: "try pulling it first",
		},
		{
			name: "cloudflare gateway timeout page", provider: "custom", status: 524,
			body: `<!DOCTYPE html><html><head><title>api.example.com | 524: A timeout occurred</title></head><body>...</body></html>`,
			kind: ErrTimeout, retryable: true, msgHas: "524: A timeout occurred",
		},
		{
			name: "nginx bad gateway page", provider: "custom", status: 502,
			body: `<html><head><title>502 Bad Gateway</title></head><body><center><h1>502 Bad Gateway</h1></center></body></html>`,
			kind: ErrServer, retryable: true, msgHas: "502 Bad Gateway",
		},
		{
			name: "empty body falls back to status text", provider: "custom", status: 503,
			kind: ErrServer, retryable: true, msgHas: "Service Unavailable",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := ClassifyHTTP(tt.provider, tt.status, tt.header, []byte(tt.body), time.Time{})
			if e.Kind != tt.kind {
				t.Fatalf("kind = %s, want %s (message %q)", e.Kind, tt.kind, e.Message)
			}
			if e.ContextLimit != tt.limit {
				t.Errorf("context limit = %d, want %d", e.ContextLimit, tt.limit)
			}
			if e.RetryAfter != tt.retry {
				t.Errorf("retry after = %v, want %v", e.RetryAfter, tt.retry)
			}
			if e.Retryable() != tt.retryable {
				t.Errorf("retryable = %v, want %v", e.Retryable(), tt.retryable)
			}
			if tt.msgHas != "" && !strings.Contains(e.Message, tt.msgHas) {
				t.Errorf("message %q does not contain %q", e.Message, tt.msgHas)
			}
			if e.Provider != tt.provider {
				t.Errorf("provider = %q", e.Provider)
			}
			if !strings.Contains(e.Error(), string(tt.kind)) {
				t.Errorf("Error() = %q does not name the kind", e.Error())
			}
		})
	}
}

func TestClassifyHTTPRetryAfterDateIsReadAgainstNow(t *testing.T) {
	now := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	h := http.Header{"Retry-After": {now.Add(90 * time.Second).Format(http.TimeFormat)}}
	if e := ClassifyHTTP("openai", 429, h, nil, now); e.RetryAfter != 90*time.Second {
		t.Fatalf("retry after = %v, want 90s", e.RetryAfter)
	}
}

func TestClassifyHTTPCapsLongBodies(t *testing.T) {
	body := `{"error":{"message":"` + strings.Repeat("x", 10000) + `"}}`
	e := ClassifyHTTP("openai", 500, nil, []byte(body), time.Time{})
	if len(e.Body) > maxErrorBody {
		t.Fatalf("body kept %d bytes, cap is %d", len(e.Body), maxErrorBody)
	}
	if e.Kind != ErrServer {
		t.Fatalf("kind = %s", e.Kind)
	}
}

type timeoutErr struct{}

func (timeoutErr) Error() string   { return "i/o timeout" }
func (timeoutErr) Timeout() bool   { return true }
func (timeoutErr) Temporary() bool { return true }

func TestClassifyErrTransportFailures(t *testing.T) {
	tests := []struct {
		name string
		err  error
		kind ErrorKind
	}{
		{"deadline exceeded is a timeout", fmt.Errorf("read: %w", context.DeadlineExceeded), ErrTimeout},
		{"net timeout", &net.OpError{Op: "read", Err: timeoutErr{}}, ErrTimeout},
		{"connection reset", &net.OpError{Op: "read", Err: syscall.ECONNRESET}, ErrConnection},
		{"connection refused", &net.OpError{Op: "dial", Err: syscall.ECONNREFUSED}, ErrConnection},
		{"unexpected eof mid-body", fmt.Errorf("reading stream: %w", io.ErrUnexpectedEOF), ErrConnection},
		{"dns failure", &net.DNSError{Err: "no such host", Name: "api.example.invalid"}, ErrConnection},
		{"anything else is unknown", errors.New("weird"), ErrUnknown},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := ClassifyErr("openai", tt.err)
			pe, ok := AsProviderError(err)
			if !ok {
				t.Fatalf("not a ProviderError: %v", err)
			}
			if pe.Kind != tt.kind {
				t.Fatalf("kind = %s, want %s", pe.Kind, tt.kind)
			}
			if !pe.Retryable() {
				t.Errorf("transport failure %s should be retryable", pe.Kind)
			}
			if !errors.Is(err, tt.err) {
				t.Errorf("original error lost from the chain")
			}
		})
	}
}

func TestClassifyErrLeavesInterruptsAndClassifiedErrorsAlone(t *testing.T) {
	if err := ClassifyErr("x", context.Canceled); err != context.Canceled {
		t.Fatalf("cancellation changed into %v", err)
	}
	pe := &ProviderError{Kind: ErrAuth}
	wrapped := fmt.Errorf("call: %w", pe)
	if err := ClassifyErr("x", wrapped); err != wrapped {
		t.Fatalf("classified error rewrapped: %v", err)
	}
	if ClassifyErr("x", nil) != nil {
		t.Fatal("nil became an error")
	}
}

func TestNonRetryableKinds(t *testing.T) {
	for _, k := range []ErrorKind{ErrAuth, ErrBadRequest, ErrContextOverflow, ErrContentFilter, ErrBilling, ErrModelNotFound} {
		if (&ProviderError{Kind: k}).Retryable() {
			t.Errorf("%s is retryable; retrying it cannot succeed", k)
		}
	}
}

// Without Retry-After, a rate limit's X-RateLimit-Reset* headers say how
// long to wait, read against the clock the caller passes.
func TestRateLimitResetHeadersSetTheWait(t *testing.T) {
	now := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	epochMs := func(d time.Duration) string { return fmt.Sprint(now.Add(d).UnixMilli()) }
	openAIBody := `{"error":{"message":"Rate limit reached for gpt-4o on tokens per min (TPM): Limit 30000, Used 29450, Requested 1200. Please try again in 1.3s.","type":"tokens","code":"rate_limit_exceeded"}}`
	tests := []struct {
		name   string
		status int
		header http.Header
		body   string
		want   time.Duration
	}{
		{"OpenRouter's epoch milliseconds", 429, http.Header{"X-Ratelimit-Reset": {epochMs(42 * time.Second)}}, "", 42 * time.Second},
		{"epoch seconds", 429, http.Header{"X-Ratelimit-Reset": {fmt.Sprint(now.Add(90 * time.Second).Unix())}}, "", 90 * time.Second},
		{"OpenAI's durations: the later reset", 429, http.Header{"X-Ratelimit-Reset-Requests": {"6m0s"}, "X-Ratelimit-Reset-Tokens": {"1s"}}, "", 6 * time.Minute},
		{"short durations", 429, http.Header{"X-Ratelimit-Reset-Requests": {"20ms"}, "X-Ratelimit-Reset-Tokens": {"1s"}}, "", time.Second},
		{"the headers beat the message's hint", 429, http.Header{"X-Ratelimit-Reset-Tokens": {"2s"}}, openAIBody, 2 * time.Second},
		{"Retry-After beats the headers", 429, http.Header{"Retry-After": {"3"}, "X-Ratelimit-Reset-Requests": {"6m0s"}}, "", 3 * time.Second},
		{"a reset hours away is capped", 429, http.Header{"X-Ratelimit-Reset": {epochMs(2 * time.Hour)}}, "", MaxRetryAfter},
		{"a reset already past falls back to the hint", 429, http.Header{"X-Ratelimit-Reset": {epochMs(-time.Minute)}}, openAIBody, 1300 * time.Millisecond},
		{"a past reset and no hint ask for nothing", 429, http.Header{"X-Ratelimit-Reset": {epochMs(-time.Minute)}}, "", 0},
		{"not a rate limit: the headers are only quota news", 500, http.Header{"X-Ratelimit-Reset-Requests": {"6m0s"}}, "", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := ClassifyHTTP("openai", tt.status, tt.header, []byte(tt.body), now)
			if e.RetryAfter != tt.want {
				t.Fatalf("retry after = %v, want %v", e.RetryAfter, tt.want)
			}
		})
	}
}
