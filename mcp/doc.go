// Package mcp connects Hermes to MCP servers (on the official Go SDK) and
// offers their tools to the agent as ordinary tools in a tool.Registry,
// so they run through the same executor as the built-in ones: pre and
// post hooks, approvals, deadlines, redaction and the result cap.
//
// A server is a command speaking MCP on its standard input and output
// (stdio) or an HTTP endpoint (streamable HTTP, or the older SSE
// transport). Its tools are named mcp__<server>__<tool>, every character
// that is not a letter, digit or '_' replaced by '_', in the toolset
// mcp-<server>, with the server's own descriptions and input schemas. A
// server that has resources or prompts also gets
// mcp__<server>__list_resources and __read_resource, or __list_prompts and
// __get_prompt.
//
// Nothing is lost silently:
//   - Start starts every server at once and returns; WaitStarted is what
//     the first prompt waits on, never longer than its bound. A server
//     still starting then joins when it is ready: its tools are added to
//     the registry, and the agent offers them from its next model call.
//   - A server that fails to start, dies or cannot be reached is reported
//     through Options.OnWarning and Status. Its tools stay registered and
//     answer with an error result ("MCP server X is down: ..."). The
//     tools a server offered last time are kept in Options.CacheDir, so a
//     server that cannot start in a later session still has its tools
//     there, answering so.
//   - A server that dies or drops its connection is started again with
//     exponential backoff (Options.RestartBackoff up to MaxRestartBackoff),
//     on Options.Clock; when it is back its tools work again.
//
// Safety: a stdio server runs under Options.Sandbox (the policy of the
// terminal tool) unless its configuration marks it trusted; it gets the
// environment Options.Environ (the caller leaves secrets out) plus its own
// env. A sandboxed server is started through a sandbox.Runner
// (Options.Runner, the terminal's, or the Manager's own): forked by the
// Runner's helper, already restricted, in the namespaces of the
// terminal's commands, in a session and process group of its own.
// Stopping a stdio server closes its input, then sends it SIGTERM and
// SIGKILL, each after a short grace, kills what is left of its process
// group and reaps it. Every tool description and schema is scanned for
// prompt injection as context files are (untrusted.ScanContext); a tool
// that looks like one is refused, not offered, and reported. Each call is
// bounded by the server's timeout; its result is capped at 50,000
// characters, the rest spilled to a file by the executor.
//
// Concurrency: a Manager is safe for concurrent use; tools may be called
// from many goroutines while servers start, die and restart. OnWarning is
// called from the servers' goroutines.
package mcp
