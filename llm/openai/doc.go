// Package openai holds the two OpenAI-style transports of llm.Client, on
// top of the official SDK (github.com/openai/openai-go/v3):
//
//   - Chat (NewChat): the chat_completions wire format, spoken by OpenAI,
//     Azure OpenAI, OpenRouter, the Vercel AI gateway and most
//     OpenAI-compatible servers (xAI, z.ai, Groq, Kimi, DeepSeek,
//     llama.cpp, vLLM, Ollama, ...).
//   - Responses (NewResponses): the codex_responses wire format, the OpenAI
//     Responses API used statelessly (store=false, the whole history sent
//     every call, encrypted reasoning replayed).
//
// Contract. Each transport converts the canonical llm.Request to its wire
// format and the reply back to an llm.Response; nothing outside this
// package sees a wire type. Reasoning is collected from every place
// providers put it (reasoning_content, reasoning, reasoning_details,
// inline <think> blocks, Responses reasoning summaries), de-duplicated,
// and returned in Message.Reasoning, never in Content. What a provider
// needs to continue a conversation is kept verbatim for replay:
// reasoning_details (OpenRouter, Nous, Vercel) in Message.ReasoningDetails
// and Responses reasoning items in Message.ReasoningItems. Tool-call
// arguments are returned exactly as the model produced them; they are
// canonicalised (sorted keys, compact) only when sent back, so identical
// histories always produce identical request bytes.
//
// Use of the SDK. Request bodies are encoded here from plain structs, and
// replies and events are decoded into lean types that also carry the
// fields the SDK does not model (reasoning, reasoning_content,
// reasoning_details): the SDK's reflective encoder and its event unions
// cost several times the rest of a call on a long history (see
// BenchmarkChatConvert50). The SDK's param types remain the reference:
// TestChatEncodingMatchesTheSDK and TestResponsesEncodingMatchesTheSDK
// check that every body equals, value for value, what those types would
// send. The bodies are posted with net/http (base URL, headers, no
// redirect to another origin) and streams read with the SDK's SSE decoder
// (packages/ssestream): the SDK's client lives in its root package, whose
// init registers the types of every service (realtime, webhooks,
// websockets, ...), about 16 MB of binary and a millisecond of start-up
// that hermes would carry for nothing.
//
// Provider quirks are chosen from Options.Provider, else from the base
// URL's host: OpenRouter gets its attribution headers; OpenRouter, Nous
// and the Vercel AI gateway get the unified `reasoning` object and
// reasoning_details replayed; DeepSeek/Kimi-style providers get reasoning echoed as
// reasoning_content; OpenAI and Azure get neither; GPT-5 and o-series
// models get max_completion_tokens instead of max_tokens. Which model is
// which (reasoning, Kimi's quirk) comes from llm/modelinfo.
//
// Completeness. A reply is an answer only when it says it ended. A Chat
// Completions stream needs a finish_reason or [DONE], a Responses stream
// its final response event; without them, and for a non-streamed body
// whose JSON stops half-way, the reply was cut short and Complete fails
// with an ErrConnection, which the provider layer retries like a dropped
// connection. The finish itself must be one this package knows:
// finish_reason stop, length, tool_calls, content_filter (and the aliases
// some servers use), a Responses status completed or incomplete for
// max_output_tokens or content_filter. A missing or unknown reason, a
// tool-call finish without a call, a response still in_progress: each is
// an ErrInvalidResponse that names what came. The deprecated
// function_call (message.function_call, delta.function_call, finish
// "function_call") becomes a tool call with an id made up. Only a length
// finish means the output limit cut the answer; arguments that do not
// parse after any other finish are returned as they are, for the tool to
// reject with an error the model reads.
//
// Errors. HTTP failures become *llm.ProviderError through
// llm.ClassifyHTTP (status, Retry-After and the rate-limit reset headers,
// read on Options.Now; body), transport failures through llm.ClassifyErr,
// and a reply without choices or output, or a failed Responses status, an
// ErrInvalidResponse. The SDK's own retries are off: retry, backoff and
// fallback belong to the provider layer. When ctx is cancelled, Complete
// returns ctx.Err() and no partial response.
//
// Concurrency. Chat and Responses are safe for concurrent use: they keep
// no per-call state, only bounded memos (canonical arguments, replayable
// reasoning items) behind a mutex. Each Complete call sends deltas to its
// sink on the calling goroutine, so a sink needs no locking of its own.
package openai
