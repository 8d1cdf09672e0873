package llmtest

import (
	"encoding/json"
	"net/http"

	"github.com/hermes-go/hermes/llm"
)

// Error bodies as the real providers send them, for Error replies. Each
// is the body of the status in its name; the server sends it with
// Content-Type application/json.
const (
	// OpenAIContextOverflowBody is OpenAI's 400 for a prompt over the context window.
	OpenAIContextOverflowBody = `{
  "error": {
    "message": "This model's maximum context length is 128000 tokens. However, your messages resulted in 130532 tokens. Please reduce the length of the messages.",
    "type": "invalid_request_error",
    "param": "messages",
    "code": "context_length_exceeded"
  }
}`
	// OpenAIUnauthorizedBody is OpenAI's 401 for a wrong API key.
	OpenAIUnauthorizedBody = `{
  "error": {
    "message": "Incorrect API key provided: sk-proj-********************wxyz. You can find your API key at https://platform.openai.com/account/api-keys.",
    "type": "invalid_request_error",
    "param": null,
    "code": "invalid_api_key"
  }
}`
	// OpenAIForbiddenBody is OpenAI's 403 for a request from an unsupported region.
	OpenAIForbiddenBody = `{
  "error": {
    "code": "unsupported_country_region_territory",
    "message": "Country, region, or territory not supported",
    "param": null,
    "type": "request_forbidden"
  }
}`
	// OpenAIRateLimitBody is OpenAI's 429 for a tokens-per-minute limit.
	OpenAIRateLimitBody = `{
  "error": {
    "message": "Rate limit reached for gpt-4o in organization org-llmtest on tokens per min (TPM): Limit 30000, Used 29450, Requested 1200. Please try again in 1.3s. Visit https://platform.openai.com/account/rate-limits to learn more.",
    "type": "tokens",
    "param": null,
    "code": "rate_limit_exceeded"
  }
}`
	// OpenAIQuotaBody is OpenAI's 429 for an exhausted quota (billing, not a rate).
	OpenAIQuotaBody = `{
  "error": {
    "message": "You exceeded your current quota, please check your plan and billing details. For more information on this error, read the docs: https://platform.openai.com/docs/guides/error-codes/api-errors.",
    "type": "insufficient_quota",
    "param": null,
    "code": "insufficient_quota"
  }
}`
	// OpenAIServerErrorBody is OpenAI's 500.
	OpenAIServerErrorBody = `{
  "error": {
    "message": "The server had an error while processing your request. Sorry about that!",
    "type": "server_error",
    "param": null,
    "code": null
  }
}`
	// OpenAIOverloadedBody is OpenAI's 503 when the model is overloaded.
	OpenAIOverloadedBody = `{
  "error": {
    "message": "That model is currently overloaded with other requests. You can retry your request, or contact us through our help center at help.openai.com if the error persists.",
    "type": "server_error",
    "param": null,
    "code": null
  }
}`
)

// Anthropic error bodies.
const (
	// AnthropicContextOverflowBody is Anthropic's 400 for a prompt over the context window.
	AnthropicContextOverflowBody = `{"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long: 208310 tokens > 200000 maximum"},"request_id":"req_011CLlmtest0000000000001"}`
	// AnthropicUnauthorizedBody is Anthropic's 401 for a wrong API key.
	AnthropicUnauthorizedBody = `{"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"},"request_id":"req_011CLlmtest0000000000002"}`
	// AnthropicForbiddenBody is Anthropic's 403.
	AnthropicForbiddenBody = `{"type":"error","error":{"type":"permission_error","message":"Your API key does not have permission to use the specified resource."},"request_id":"req_011CLlmtest0000000000003"}`
	// AnthropicRateLimitBody is Anthropic's 429.
	AnthropicRateLimitBody = `{"type":"error","error":{"type":"rate_limit_error","message":"This request would exceed the rate limit for your organization (00000000-0000-0000-0000-000000000000) of 30,000 input tokens per minute. For details, refer to: https://docs.claude.com/en/api/rate-limits. You can see the response headers for current usage. Please reduce the prompt length or the maximum tokens requested, or try again later. You may also contact sales at https://www.anthropic.com/contact-sales to discuss your options for a rate limit increase."},"request_id":"req_011CLlmtest0000000000004"}`
	// AnthropicServerErrorBody is Anthropic's 500.
	AnthropicServerErrorBody = `{"type":"error","error":{"type":"api_error","message":"Internal server error"},"request_id":"req_011CLlmtest0000000000005"}`
	// AnthropicOverloadedBody is Anthropic's 529 (also sent as an SSE error
	// event in the middle of a stream).
	AnthropicOverloadedBody = `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"},"request_id":"req_011CLlmtest0000000000006"}`
)

// OpenRouter error bodies. Errors from the upstream provider come wrapped,
// with the provider's own body in metadata.raw.
const (
	// OpenRouterContextOverflowBody is OpenRouter's 400 for a prompt over the context window.
	OpenRouterContextOverflowBody = `{"error":{"message":"This endpoint's maximum context length is 131072 tokens. However, you requested about 141607 tokens (10535 of text input, 131072 in the output). Please reduce the length of either one, or use the \"middle-out\" transform to compress your prompt automatically.","code":400,"metadata":{"provider_name":null}}}`
	// OpenRouterUnauthorizedBody is OpenRouter's 401 for a missing or unknown key.
	OpenRouterUnauthorizedBody = `{"error":{"message":"No auth credentials found","code":401}}`
	// OpenRouterInsufficientCreditsBody is OpenRouter's 402.
	OpenRouterInsufficientCreditsBody = `{"error":{"message":"Insufficient credits. Add more using https://openrouter.ai/settings/credits","code":402}}`
	// OpenRouterForbiddenBody is OpenRouter's 403 for a key over its spending limit.
	OpenRouterForbiddenBody = `{"error":{"message":"Key limit exceeded (total limit). Manage it using https://openrouter.ai/settings/keys","code":403}}`
	// OpenRouterRateLimitBody is OpenRouter's 429 passed on from an upstream provider.
	OpenRouterRateLimitBody = `{"error":{"message":"Provider returned error","code":429,"metadata":{"raw":"deepseek/deepseek-chat-v3-0324:free is temporarily rate-limited upstream. Please retry shortly, or add your own key to accumulate your rate limits: https://openrouter.ai/settings/integrations","provider_name":"Chutes"}},"user_id":"user_llmtest"}`
	// OpenRouterServerErrorBody is OpenRouter's 500.
	OpenRouterServerErrorBody = `{"error":{"message":"Internal Server Error","code":500}}`
	// OpenRouterOverloadedBody is OpenRouter's 503 when the upstream
	// provider is overloaded.
	OpenRouterOverloadedBody = `{"error":{"message":"Provider returned error","code":503,"metadata":{"raw":"{\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}","provider_name":"Anthropic"}},"user_id":"user_llmtest"}`
)

// defaultErrorBody is the real provider's body for status in format, used
// when an Error reply has no body.
func defaultErrorBody(format llm.APIMode, status int) string {
	if format == llm.AnthropicMessages {
		switch status {
		case http.StatusBadRequest, http.StatusRequestEntityTooLarge:
			return AnthropicContextOverflowBody
		case http.StatusUnauthorized:
			return AnthropicUnauthorizedBody
		case http.StatusForbidden:
			return AnthropicForbiddenBody
		case http.StatusTooManyRequests:
			return AnthropicRateLimitBody
		case 529, http.StatusServiceUnavailable:
			return AnthropicOverloadedBody
		}
		if status >= 500 {
			return AnthropicServerErrorBody
		}
		return anthropicErrorBody("invalid_request_error", http.StatusText(status))
	}
	switch status {
	case http.StatusBadRequest, http.StatusRequestEntityTooLarge:
		return OpenAIContextOverflowBody
	case http.StatusUnauthorized:
		return OpenAIUnauthorizedBody
	case http.StatusForbidden:
		return OpenAIForbiddenBody
	case http.StatusTooManyRequests:
		return OpenAIRateLimitBody
	case http.StatusServiceUnavailable, 529:
		return OpenAIOverloadedBody
	}
	if status >= 500 {
		return OpenAIServerErrorBody
	}
	return openAIErrorBody("invalid_request_error", "", http.StatusText(status))
}

// openAIErrorBody builds an OpenAI-shaped error body.
func openAIErrorBody(typ, param, msg string) string {
	var p any
	if param != "" {
		p = param
	}
	b, _ := json.Marshal(map[string]any{"error": map[string]any{"message": msg, "type": typ, "param": p, "code": nil}})
	return string(b)
}

// anthropicErrorBody builds an Anthropic-shaped error body.
func anthropicErrorBody(typ, msg string) string {
	b, _ := json.Marshal(map[string]any{"type": "error", "error": map[string]any{"type": typ, "message": msg}})
	return string(b)
}
