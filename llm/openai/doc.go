// Package openai holds the two OpenAI-style transports of llm.Client,
// built on the official SDK (github.com/openai/openai-go/v3):
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
// Provider quirks are chosen from Options.Provider, else from the base
// URL's host: OpenRouter gets its attribution headers and the unified
// `reasoning` object; DeepSeek/Kimi-style providers get reasoning echoed as
// reasoning_content; OpenAI and Azure get neither; GPT-5 and o-series
// models get max_completion_tokens instead of max_tokens.
//
// Errors. HTTP failures become *llm.ProviderError through
// llm.ClassifyHTTP (status, Retry-After, body), transport failures through
// llm.ClassifyErr, and a reply without choices or output, or a failed
// Responses status, an ErrInvalidResponse. The SDK's own retries are off:
// retry, backoff and fallback belong to the provider layer. When ctx is
// cancelled, Complete returns ctx.Err() and no partial response.
//
// Concurrency. Chat and Responses hold no per-call state and are safe for
// concurrent use; each Complete call streams to its sink on the calling
// goroutine, so a sink needs no locking of its own.
package openai
