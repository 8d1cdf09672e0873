// Package sessionsearch holds the "session_search" tool: full-text recall
// over past conversations stored in the session database.
//
// Three shapes, chosen by the arguments:
//   - discovery (query): ranked matches (bm25) grouped by session, best
//     session first, each with its title, source, date and the matching
//     snippets marked >>>like this<<<;
//   - read (session_id): the start and end of one session's transcript;
//   - browse (no arguments): the most recent sessions.
//
// The conversation the call comes from (tool.Call.SessionID) and its
// lineage are always excluded: the model already has them.
//
// Concurrency: the tool only reads and is tool.Parallel.
package sessionsearch
