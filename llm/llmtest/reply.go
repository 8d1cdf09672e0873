package llmtest

import (
	"net/http"
	"time"

	"github.com/hermes-go/hermes/llm"
)

// Reply scripts the answer to one request. The Server renders the same
// Reply in whichever wire format the request used, streamed or not; the
// Client returns what a transport would make of it.
//
// The zero Reply is a successful turn with empty text. Fields combine: a
// reply may carry reasoning, text and tool calls at once, and they are
// emitted in that order, as real models do.
type Reply struct {
	// Text is the visible answer. Streams send it one word per event.
	Text string
	// Reasoning is the model's thinking: reasoning_content deltas (Chat
	// Completions), a reasoning item with a summary (Responses), a signed
	// thinking block (Anthropic).
	Reasoning string
	// Signature is the Anthropic thinking signature; generated when empty.
	Signature string
	// ToolCalls are the calls the model makes. An empty ID is generated in
	// the provider's style (call_…, toolu_…); empty Arguments become "{}".
	// Arguments stream in fragments of a few characters and may be invalid
	// JSON, to script a truncated call (not for non-streamed Anthropic,
	// whose tool_use input must be an object).
	ToolCalls []llm.ToolCall
	// Refusal is a refusal sent in the provider's refusal field: message
	// refusal (Chat Completions), a refusal content part (Responses), a
	// text block ending with stop_reason "refusal" (Anthropic).
	Refusal string
	// Empty sends a reply with nothing in it: no choices (Chat
	// Completions), an empty output list (Responses), an empty content list
	// (Anthropic). Other content fields are ignored.
	Empty bool
	// LegacyFunctionCall sends the first of ToolCalls as Chat Completions'
	// deprecated function_call (message.function_call or
	// delta.function_call, no id, finish_reason "function_call"), as some
	// older servers still do. The other formats have no such form and send
	// the calls as usual.
	LegacyFunctionCall bool

	// FinishReason is the normalised reason (llm.FinishStop, FinishToolCalls,
	// FinishLength, FinishContentFilter), mapped to each format's own value
	// (end_turn, max_tokens, an incomplete response, ...). Any other value
	// is sent verbatim. Empty means tool_calls when there are tool calls,
	// content_filter for a refusal, stop otherwise.
	FinishReason llm.FinishReason
	// Usage is the token usage to report. Nil computes a plausible count
	// from the sizes of the request and the reply (about 4 bytes a token).
	// InputTokens counts every prompt token, cached ones included, as in
	// llm.Usage; Anthropic's input_tokens is sent without the cached part.
	Usage *llm.Usage
	// Model is the model the provider says served the call; empty echoes
	// the requested model.
	Model string

	// Status, when not 0 or 200, makes the reply an HTTP error with this
	// status and Body. An empty Body is filled with the real provider's
	// error body for that status in the request's format.
	Status int
	// Body is the raw response body of an error reply.
	Body string
	// Header holds extra response headers (Retry-After, ...).
	Header http.Header

	// Delay waits before the first byte of the response (Server only).
	Delay time.Duration
	// ChunkDelay waits before each streamed event after the first (Server
	// only).
	ChunkDelay time.Duration
	// CutAfter, when positive, breaks a stream after that many SSE events
	// (the first being the role chunk, response.created or message_start):
	// the connection is dropped without a finish event, or, with
	// StreamError, the error is sent as an SSE error event. A non-streamed
	// reply is cut half-way through its body. A Client counts deltas
	// instead of events.
	CutAfter int
	// EndAfter, when positive, ends a stream after that many SSE events
	// as if it were over: the response is closed properly, but the finish
	// event and the terminator ([DONE], response.completed, message_stop)
	// never come, as when a proxy loses its upstream and closes cleanly. A
	// non-streamed reply sends the first half of its body as the whole body
	// (with a Content-Length to match). A Client counts deltas instead of
	// events.
	EndAfter int
	// StreamError is an error body sent as an SSE error event after
	// CutAfter events (at once when CutAfter is 0); the stream then ends.
	// Streams only.
	StreamError string
	// Raw, when not empty, is the whole body of a successful response,
	// sent as it is with status 200 and Header: SSE text for a streamed
	// request (Content-Type text/event-stream), else JSON. It is for what
	// the other fields cannot say: a server's malformed or unusual reply.
	// The content fields are ignored; a Client cannot play it and fails
	// the call as one the script cannot answer.
	Raw string
	// Hang holds the request open, writing nothing more, until the client
	// goes away or the server closes, then drops the connection. It hangs
	// before the response headers, or, for a stream with CutAfter, after
	// that many events (a stalled stream). Server.Hanging (Client.Hanging)
	// reports when it starts.
	Hang bool
}

// Error is a reply that fails with an HTTP status and body. An empty body
// is filled with the real provider's body for the status in the request's
// format (see the *Body constants): 400 is a context overflow, 401 a wrong
// key, 403 a permission error, 429 a rate limit, 503 and 529 an overload,
// other 5xx a server error.
func Error(status int, body string) Reply {
	return Reply{Status: status, Body: body}
}

// WithHeader returns a copy of r with a response header added.
func (r Reply) WithHeader(key, value string) Reply {
	h := r.Header.Clone()
	if h == nil {
		h = http.Header{}
	}
	h.Add(key, value)
	r.Header = h
	return r
}

func (r *Reply) isError() bool { return r.Status != 0 && r.Status != http.StatusOK }

// finish returns the normalised finish reason of a successful reply.
func (r *Reply) finish() llm.FinishReason {
	switch {
	case r.FinishReason != "":
		return r.FinishReason
	case r.Empty:
		return llm.FinishStop
	case len(r.ToolCalls) > 0:
		return llm.FinishToolCalls
	case r.Refusal != "":
		return llm.FinishContentFilter
	}
	return llm.FinishStop
}
