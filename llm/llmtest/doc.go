// Package llmtest is a fake model provider for tests, in three layers that
// share one way of scripting a model's turns (Reply):
//
//   - Server, a real HTTP server on 127.0.0.1 that speaks the three wire
//     formats an agent talks to (OpenAI Chat Completions, OpenAI
//     Responses, Anthropic Messages), streamed and not, for tests through
//     the real transports;
//   - Client, an in-process llm.Client for tests of code above the
//     transports (an agent loop, a fallback chain, a tool that calls a
//     model) that need no HTTP;
//   - cassettes, real provider traffic recorded in go-vcr files that ship
//     with the module, replayed through an http.RoundTripper, for checking
//     transports against what providers really send.
//
// None of them needs a network or an API key. Use the Server to test an
// agent end to end through its real transports:
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
// (CutAfter drops the connection, StreamError sends an error event), end
// it cleanly short of its finish and terminator (EndAfter), or hold it
// open until the client gives up (Hang; Hanging reports when that starts,
// so tests interrupt without sleeping). FinishReason takes any value, to
// send a reason a transport does not know; LegacyFunctionCall sends Chat
// Completions' deprecated function_call; Raw sends a body verbatim, for a
// reply none of the fields can describe.
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
// # In-process client
//
// A Client takes the same script without a server in between:
//
//	model := llmtest.NewClient(t)
//	model.Enqueue(llmtest.Reply{Text: "Done."})
//	a := agent.New(agent.Config{Client: model, Model: "test-model"})
//	// ... run it ...
//	sent := model.Requests()[0].Messages
//
// It answers as a transport reading the Server's response would: the same
// Response, the same deltas to the sink (text and reasoning word by word,
// one DeltaToolCall per call), an Error reply as the classified
// *llm.ProviderError of the provider's body, Hang blocking until the
// context ends. EnqueueFunc and HandleFunc take functions that answer a
// call themselves, for what a Reply cannot say. Requests returns deep
// copies of what was sent; a call the script cannot answer fails the test
// at cleanup, as with the Server.
//
// # Recorded provider traffic
//
// testdata/provider-cassettes at the module root holds real conversations
// with OpenAI, Anthropic, OpenRouter, Azure, Vercel and OpenAI-compatible
// providers (see its README and LICENSE). CassetteDir finds it,
// EachCassette runs a subtest per recording of a suite, LoadCassette reads
// one, and its Transport replays the responses in order to a transport
// under test while keeping what it was sent:
//
//	c, _ := llmtest.LoadCassette(path)
//	replay := c.Transport()
//	client := openai.NewChat(llm.Options{BaseURL: ..., HTTPClient: &http.Client{Transport: replay}})
//	// ... call it, compare with c.Interactions[i].Response.Body ...
//	sent := replay.RequestBodies()
//
// # Concurrency
//
// Server, Client and the cassette Replayer are safe for concurrent use:
// calls may arrive in parallel while the test enqueues replies or reads
// Requests. Replies are handed out in arrival order. Requests returned by
// Requests never change afterwards.
package llmtest
