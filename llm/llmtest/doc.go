// Package llmtest is a fake model provider for tests: a real HTTP server on
// 127.0.0.1 that speaks the three wire formats an agent talks to (OpenAI
// Chat Completions, OpenAI Responses, Anthropic Messages), streamed and
// not, and answers each request with a reply the test scripted.
//
// Use it to test an agent end to end through its real transports, with no
// network and no API key:
//
//	srv := llmtest.NewServer(t)
//	srv.Enqueue(
//		llmtest.Reply{ToolCalls: []llm.ToolCall{{Name: "terminal", Arguments: `{"command":"ls"}`}}},
//		llmtest.Reply{Text: "The directory holds two files."},
//	)
//	// point the agent at srv.URL() (OpenAI formats) or srv.AnthropicURL()
//	// ... run it ...
//	msgs := srv.Requests()[1].Messages() // what the agent sent back
//
// # Wire formats
//
// The request path picks the format: a path ending in /chat/completions is
// served as Chat Completions, /responses as Responses, /messages as
// Anthropic Messages. The request's "stream" field picks streaming. So one
// script runs unchanged against every transport. Replies mimic recorded
// traffic from api.openai.com and api.anthropic.com closely enough that
// the official SDKs parse them: chunk and event order, ids in each
// provider's style, usage where each provider puts it, [DONE] and
// message_stop terminators. Reasoning is sent as reasoning_content deltas
// (Chat Completions), a reasoning item with a summary and opaque
// encrypted_content (Responses) and a signed thinking block (Anthropic).
// SetDialect switches Chat Completions to OpenRouter's variant (signed
// reasoning_details, keep-alive comments, usage with cost).
//
// # Scripting
//
// Enqueue appends Replies; each request takes the next one, in arrival
// order. Handle sets a function for requests that find the queue empty.
// A Reply can fail the call (Error, with the real providers' error bodies
// in the *Body constants), delay it (Delay, ChunkDelay), break the stream
// (CutAfter, StreamError), or hold it open until the client gives up
// (Hang; Hanging reports when that starts, so tests interrupt without
// sleeping).
//
// # Checking what was sent
//
// Requests returns every request with its headers, raw body, decoded JSON
// and a canonical view (Messages, System, Tools), whatever the format. The
// server also makes the checks real providers make and answers 400 with
// their messages when a request breaks them: a tool result for every tool
// call, required fields, the anthropic-version header, signed thinking
// blocks. RequireKey checks credentials the way each provider does.
//
// # Failing clearly
//
// A request the script cannot answer (the queue ran out and no handler is
// set, an unknown path, an invalid request) gets a 4xx/5xx body saying so
// and is listed by Unexpected; unless AllowUnexpected was called, the test
// fails at cleanup, naming each such request. A test is never left
// passing because the agent silently recovered from a script mistake.
//
// # Concurrency
//
// A Server is safe for concurrent use: requests may arrive in parallel
// while the test enqueues replies or reads Requests. Replies are handed
// out in arrival order. Requests returned by Requests never change
// afterwards.
package llmtest
