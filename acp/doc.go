// Package acp serves the agent to editors (Zed, VS Code, JetBrains) over
// the Agent Client Protocol: JSON-RPC on stdio, with
// github.com/coder/acp-go-sdk.
//
// Methods: initialize, session/new (a session in the editor's working
// directory, with its own sandbox there), session/load (a stored
// session, its history replayed as updates), session/resume (the same
// without the replay), session/fork (a stored session copied into a new
// one, session.Store.Fork), session/list (the stored sessions, most
// recently active first), session/close, session/prompt, session/cancel,
// session/set_mode and session/set_model.
//
// Models: session/new, load and resume answer with the model picker,
// app.Runtime.Models as "provider:model" (the configured model, its
// fallbacks, the auxiliary tasks' own); session/set_model puts the
// session's next turns on another one (app.ConversationOptions.Model), the
// fallbacks behind it, and refuses at once a model it cannot resolve.
//
// Prompts: text, embedded text resources (inlined with their URI),
// resource links, and images (base64 data with its media type, an
// http(s) or data: URI, or a file:// URI; image blobs too), which go on
// the turn's user message. What cannot reach the model fails the prompt
// with the reason and no model call: an invalid, unsupported or
// oversized image, images for a model without vision, audio (not
// advertised), other binary resources. The SDK reads a message of at
// most 10 MB; a longer one (a large screenshot) reaches it with its long
// strings set aside and is whole again in the prompt (bigline.go), up to
// 64 MB a message and the 20 MB image limit.
//
// A prompt's turn is forwarded as it runs, in the
// runtime's event order: message chunks, thought chunks (the model's
// reasoning), tool calls and their updates (with a kind, and the file's
// location for file tools), and the todo list as the session's plan.
//
// Approvals: a command that needs approval becomes a
// session/request_permission with allow once, allow always (saved to
// command_allowlist) and reject; no answer, an error, or a cancelled
// turn is a reject. Modes: "default" asks, "yolo" runs dangerous
// commands without asking (hardline ones are still refused and the
// sandbox stays), "read-only" runs the session under the read-only
// sandbox.
//
// MCP servers the editor passes with session/new, load, resume or fork (stdio,
// http, sse) are started for that session alone (app.SessionMCP): their
// tools are offered to its agent beside the configured servers', under
// the same naming, toolsets setting and sandbox (the editor is the user,
// but its servers are never trusted to run outside the sandbox). They
// stop when the session is closed or loaded again, or the connection
// ends. What goes wrong with them (a server that cannot start, dies, or
// is still starting after mcp_startup_timeout) is sent to the editor as
// message text, after the session/new or session/load answer so that the
// editor knows the session; the model is offered no tool of a server
// before it has started.
//
// Like the API server, a session keeps no agent between prompts: each
// prompt opens a conversation over the runtime's shared parts
// (app.Runtime.Open) in the session's workspace, resuming the session
// from the store, and closes it at the end of the turn. session/cancel interrupts the turn
// at once: the model call, a running tool, a pending permission request.
//
// Concurrency: the connection serves requests concurrently; one session
// runs one prompt at a time (a new prompt cancels the running one, as
// the SDK does); sessions are independent.
package acp
