package llm

import (
	"context"
	"encoding/json"
	"net/http"
	"time"
)

// Client performs one model call. Deltas stream to sink (which may be nil)
// as they arrive, on the calling goroutine; the assembled Response comes
// back at the end. Cancelling ctx interrupts the call: Complete then returns
// ctx's error and no partial Response.
//
// A Response is returned only for a reply that says it is whole: one that
// ends before its terminator (a stream without its finish event, a body
// cut half-way) fails with an ErrConnection *ProviderError, and one whose
// finish reason the transport does not know with an ErrInvalidResponse
// naming it; the deltas already streamed are then void.
type Client interface {
	Complete(ctx context.Context, req *Request, sink func(Delta)) (*Response, error)
}

// ClientFunc adapts a function to Client.
type ClientFunc func(ctx context.Context, req *Request, sink func(Delta)) (*Response, error)

// Complete calls f.
func (f ClientFunc) Complete(ctx context.Context, req *Request, sink func(Delta)) (*Response, error) {
	return f(ctx, req, sink)
}

// APIMode names a wire format.
type APIMode string

// The three wire formats of upstream Hermes.
const (
	ChatCompletions   APIMode = "chat_completions"
	CodexResponses    APIMode = "codex_responses"
	AnthropicMessages APIMode = "anthropic_messages"
)

// ToolDef is a function offered to the model.
type ToolDef struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Parameters  json.RawMessage `json:"parameters"`
}

// Request is one model call in canonical form. Messages is the API copy,
// system message first when there is one; transports never modify it.
type Request struct {
	Model    string
	Messages []Message
	Tools    []ToolDef
	// MaxTokens caps the output; 0 leaves the provider's default (Anthropic
	// needs one and its transport supplies it).
	MaxTokens int
	// ReasoningEffort is "", "none", "low", "medium" or "high".
	ReasoningEffort string
	Temperature     *float64
	// Cache asks the transport to place prompt-caching markers where the
	// wire format supports them (Anthropic: system + last 3 messages).
	Cache *CacheOptions
	// SessionID, when set, is sent where a provider uses it for routing or caching.
	SessionID string
}

// CacheOptions configures prompt caching markers.
type CacheOptions struct {
	// TTL is "5m" (default) or "1h".
	TTL string
}

// FinishReason is why the model stopped, normalised across wire formats.
type FinishReason string

// Normalised finish reasons.
const (
	FinishStop          FinishReason = "stop"
	FinishToolCalls     FinishReason = "tool_calls"
	FinishLength        FinishReason = "length"
	FinishContentFilter FinishReason = "content_filter"
	// FinishInterrupted marks the assistant message that closes a prompt
	// the user interrupted before it was answered. No transport returns it.
	FinishInterrupted FinishReason = "interrupted"
	// FinishFailed marks the assistant message that closes a prompt whose
	// turn failed without an answer. No transport returns it.
	FinishFailed FinishReason = "failed"
)

// Response is the assembled result of one call.
type Response struct {
	// Message is the assistant message: content with reasoning removed,
	// reasoning, and tool calls in the order the model produced them.
	Message      Message
	FinishReason FinishReason
	Usage        Usage
	// Model is the model that served the call, as the provider reported it.
	Model string
	ID    string
	// Refusal is the provider's refusal text, when it sent one separately.
	Refusal string
}

// Usage counts tokens for one call, or sums of calls. InputTokens counts
// every prompt token, cached ones included; CacheReadTokens and
// CacheWriteTokens are the parts of it read from or written to a cache.
type Usage struct {
	InputTokens      int64 `json:"input_tokens"`
	OutputTokens     int64 `json:"output_tokens"`
	CacheReadTokens  int64 `json:"cache_read_tokens"`
	CacheWriteTokens int64 `json:"cache_write_tokens"`
	ReasoningTokens  int64 `json:"reasoning_tokens"`
	TotalTokens      int64 `json:"total_tokens"`
}

// Add sums u and v.
func (u Usage) Add(v Usage) Usage {
	return Usage{
		InputTokens:      u.InputTokens + v.InputTokens,
		OutputTokens:     u.OutputTokens + v.OutputTokens,
		CacheReadTokens:  u.CacheReadTokens + v.CacheReadTokens,
		CacheWriteTokens: u.CacheWriteTokens + v.CacheWriteTokens,
		ReasoningTokens:  u.ReasoningTokens + v.ReasoningTokens,
		TotalTokens:      u.TotalTokens + v.TotalTokens,
	}
}

// DeltaKind says what a Delta carries.
type DeltaKind int

// Delta kinds.
const (
	DeltaText      DeltaKind = iota + 1 // visible text
	DeltaReasoning                      // reasoning text
	DeltaToolCall                       // a tool call's name first seen (once per call)
	// DeltaRetry and DeltaFallback come from a client that retries or
	// switches endpoints itself (provider.Chain), never from a transport.
	DeltaRetry    // Text: the call is tried again (after a wait, or new credentials)
	DeltaFallback // Text: the call moved to another endpoint; Model and Provider name it
)

// Delta is one streamed fragment.
type Delta struct {
	Kind DeltaKind
	Text string
	// ToolName and ToolIndex identify the call for DeltaToolCall.
	ToolName  string
	ToolIndex int
	// Model and Provider name the endpoint a DeltaFallback moved to.
	Model    string
	Provider string
	// Restart, on a DeltaRetry or DeltaFallback, says that the deltas
	// streamed so far belong to an abandoned attempt: the answer streams
	// again from its start.
	Restart bool
}

// Options configures a transport: where it connects and how it
// authenticates. The zero HTTPClient means http.DefaultClient.
type Options struct {
	BaseURL string
	APIKey  string
	// Provider names the provider ("openai", "openrouter", "anthropic",
	// "custom", ...) so a transport can apply its quirks.
	Provider   string
	Headers    map[string]string
	HTTPClient *http.Client
	// NoStream makes calls without streaming.
	NoStream bool
	// Now is the clock that turns a provider's absolute retry time (an
	// HTTP-date Retry-After, an epoch X-RateLimit-Reset) into
	// ProviderError.RetryAfter; nil means time.Now.
	Now func() time.Time
}
