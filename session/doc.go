// Package session is the SQLite store of conversations: one row per session
// (source, model, title, lineage, token counters, the system prompt it was
// built with, its task list) and one row per message, with a full-text
// index over message content for session_search.
//
// The store lives in one file ($HERMES_HOME/state.db) opened in WAL mode.
// Migrations are embedded SQL files applied at Open inside one transaction
// and recorded in schema_version; a file written by a newer schema, a
// SQLite database hermes did not create, a file that is not a SQLite
// database, or a location that cannot be written is a clear error naming
// the file, and the file is never replaced or rewritten to "repair" it.
// Open inspects an existing file read-only first, so a refused file is
// not even switched to WAL: its bytes stay as they were.
//
// Writes are incremental and cheap (AppendMessage is one insert, and the
// message is indexed for search before its transaction commits) so the
// agent can persist each message as soon as it enters the history:
// nothing is lost when the process dies mid-turn. Text passes through the
// Redact function given to Open before it is stored. The store, not a
// trigger, indexes new messages, all of a transaction's in its last
// statement: FTS5 writes what it holds at every statement's savepoint, so
// a trigger wrote an index segment per message (index.go).
//
// Search accepts any text (FTS5 syntax is neutralised, stopwords are
// dropped), ranks the newest matching messages with bm25 and returns
// snippets; a caller's own conversation is excluded with its lineage
// (parent_session_id chains: compression continuations, forks,
// subagents).
//
// A compression's continuation (ContinueSession) is one transaction: the
// child session, its messages and the end of the parent, so a crash
// leaves the parent as it was or the complete child, never half of it.
//
// One writer per session: Acquire takes a session's lock (on Linux one
// byte of sessions/locks beside the database, an OFD lock; elsewhere
// flock on sessions/<id>.lock; either way dropped by the kernel when its
// holder dies) so two processes resuming one session never interleave
// their messages; the second gets a *BusyError (ErrBusy) naming the pid
// that holds it. The lock is advisory: the store's writes do not check
// it, its users (package app) take it before they write.
//
// Concurrency: a Store is safe for concurrent use. All writes go through a
// single connection, so they are serialised inside the process; small
// writes that arrive together share one transaction (batch.go), and a
// message can carry the writes pending before it (AppendMessageWith); other
// processes sharing the file are handled by SQLite's busy timeout with
// BEGIN IMMEDIATE. Reads use a separate pool and never wait for a writer
// (WAL). Close must not race with other calls.
package session
