// Package serve is hermes as an MCP server (hermes mcp serve), on the
// official go-sdk's server: other agents and MCP clients (Claude Code,
// Codex, another hermes) read its conversations and hand it work.
//
// Conversations are the sessions of the runtime's store (package
// session), named by their session id. The tools:
//
//   - conversations_list {source?, search?, limit?}: stored sessions, most
//     recently active first (subagents' left out); search keeps those
//     whose id, title or first message holds the text.
//   - conversation_get {session_id}: one session (an id, a title or
//     "latest"): source, model, working directory, lineage, tokens.
//   - messages_read {session_id, limit?}: the last user and assistant
//     messages of a session, in order, each at most 2,000 characters.
//   - events_poll {after_cursor?, session_id?, limit?} and events_wait
//     {after_cursor?, session_id?, timeout_ms?}: a queue of events since
//     the server started, each with a cursor: "message" (a user or
//     assistant message stored in any session, by any process: the store
//     is read when a client asks), "approval_requested" and
//     "approval_resolved" (approvals of runs this server started).
//     events_wait blocks until one arrives or timeout_ms (at most 5
//     minutes) passes.
//   - messages_send {session_id, message}: one turn of a stored session
//     (resumed as hermes --resume does; a session another process holds
//     is refused), returning the reply.
//   - run_task {prompt, toolsets?, workdir?}: a fresh conversation (source
//     "mcp") runs the prompt; its answer is the text content and its
//     session id is in the structured content ({"session_id"}). While it
//     runs, a client that sent a progress token receives progress
//     notifications: tool calls starting and finishing, and the answer's
//     text. Cancelling the request interrupts the run.
//   - permissions_list_open and permissions_respond {id, decision}: the
//     approvals of this server's runs still waiting for an answer;
//     decision is allow-once, allow-session, allow-always or deny.
//   - session_search {query?, limit?, role_filter?, session_id?}: the
//     full-text search of the session_search tool over every stored
//     session (package tools/sessionsearch).
//
// Approvals: a command of run_task or messages_send that the runtime's
// approver would ask a person about is asked of the client that made the
// request, with an elicitation, when that client declared the
// elicitation capability: accept runs it once, decline or cancel refuses
// it. Up to protocol 2025-11-25 the server sends the elicitation while
// serving the call, and withdraws it when the approval is answered
// otherwise; from 2026-07-28, which forbids that, the call's result is an
// input request (multi round-trip, SEP-2322) and the client's next call,
// carrying the run's request state, answers it and waits on (jobs.go;
// a run ended while its client was away is kept for that call, up to
// 100 of them). While it waits it is listed by permissions_list_open, and
// permissions_respond (from any client of this server) answers it too;
// the runtime's approver (package tool/approval) denies it when nobody
// answers within approvals.timeout.
// A client without the capability cannot be asked: the command is
// denied and the model is told that nobody can approve it. The hardline
// list and the sandbox apply either way.
//
// Transports: stdio (ServeStdio: the protocol is on the given reader and
// writer alone, so a caller keeps its logs off stdout), and streamable
// HTTP (Handler), where every request must carry "Authorization: Bearer
// <key>" (compared in constant time) and Handler refuses an empty key.
package serve
