// Package anthropic is the anthropic_messages transport: it speaks the
// Anthropic Messages API (and Anthropic-compatible third-party endpoints)
// through the official SDK, converting the canonical llm types at the edge
// in both directions.
//
// Request conversion (convert.go). The system messages become the
// top-level system parameter: one plain string, or a block list when it
// carries a cache marker. Consecutive tool results become one user
// message of tool_result blocks (empty output reads "(no output)"). Every
// tool_use is answered in the message right after it: a missing answer gets
// a placeholder result, and a result that answers nothing there is
// dropped. The list starts with a user message (a user "(empty)" is
// prepended when needed), same-role neighbours are merged, tool ids are
// mapped onto [A-Za-z0-9_-], arguments that are not a JSON object are sent
// as {}, and an assistant message with nothing in it reads "(empty)".
//
// Thinking. A response's thinking and redacted_thinking blocks are stored,
// signature included, as raw JSON in llm.Message.ReasoningDetails (the text
// also in Reasoning). They are replayed on the latest assistant turn only,
// and only to Anthropic itself (api.anthropic.com, or Options.Provider
// "anthropic"), the one endpoint able to verify the signatures; older
// turns and third-party endpoints get none. Request.ReasoningEffort picks an
// extended-thinking budget (minimal 1024, low 4096, medium 10000, high
// 32000 tokens; "" or "none" leaves thinking off), and max_tokens is raised
// above the budget when needed. Models that deprecate budgets take the
// adaptive mode with the effort instead. With thinking on, Temperature is
// not sent (the API allows only the default), and a tool round that began
// without a thinking block (another provider, thinking switched on
// mid-round) finishes without thinking, as Anthropic requires.
//
// Prompt caching (cache.go). When Request.Cache is set, ApplyCacheMarkers
// puts the "system_and_3" breakpoints on the converted params: the system
// prompt and the last three messages, at most four, idempotent, never
// touching the history it was given.
//
// Encoding. The request body is written by encode.go rather than by the
// SDK's reflective encoder, which cost more than the rest of a call put
// together on a long history; a test keeps the two encodings equal. The
// SDK still does everything else: headers, the HTTP exchange, SSE
// decoding, accumulation and error bodies. The same request always gives
// the same bytes, which prompt caching relies on.
//
// Responses. Calls stream by default (Options.NoStream turns that off) and
// the SDK's Message.Accumulate assembles the events; text deltas reach the
// sink until the first tool_use starts, thinking deltas throughout, and
// each tool call is announced once. A tool_use input that does not parse
// is returned as it streamed (the SDK's accumulator would make it {}), so
// the model learns its arguments were broken. stop_reason maps end_turn
// and stop_sequence to stop, tool_use to tool_calls, max_tokens and
// model_context_window_exceeded to length, refusal to content_filter; a
// missing stop_reason, any other one (pause_turn included), and tool_use
// without a tool_use block are an ErrInvalidResponse naming it. A stream
// that ends with neither message_delta's stop_reason nor message_stop,
// and a body whose JSON stops half-way, were cut short: ErrConnection.
// Usage is taken from the final cumulative counts; InputTokens includes
// the cached prompt tokens.
//
// Errors. HTTP failures are classified by llm.ClassifyHTTP from the real
// status, headers (read on Options.Now) and body; an error event inside a stream by the status
// its type stands for; transport failures by llm.ClassifyErr. The SDK's
// retries are off: retrying is the caller's decision. Cancelling ctx makes
// Complete return ctx.Err() and no partial response.
//
// Concurrency: a Client is safe for concurrent use by several goroutines.
// Complete calls the sink on the calling goroutine.
package anthropic
