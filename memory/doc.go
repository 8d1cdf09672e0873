// Package memory keeps the agent's two persistent notebooks,
// $HERMES_HOME/memories/MEMORY.md (the agent's notes) and USER.md (what it
// knows about the user), and the memory tool that edits them.
//
// A file is a list of entries separated by a line holding only "§" (the
// entries are joined with "\n§\n"). Each file has a character budget
// (2,200 and 1,375 by default) measured on the joined text; a write that
// would end over the budget is refused with the current entries and usage
// so the model can consolidate. Operations are add, replace and remove,
// where replace and remove name an entry by a substring of it (old_text):
// several distinct matches are refused as ambiguous, identical duplicates
// act on the first. A batch of operations is all or nothing and only its
// final size counts.
//
// The files belong to the user as much as to the agent. Every operation
// re-reads the file from disk first (under a lock file, so processes
// sharing HERMES_HOME do not lose each other's writes), so an edit made by
// hand is never overwritten; writes are atomic (temporary file + rename);
// odd content (no separators, CRLF, a BOM, invalid UTF-8, a file far over
// the budget) is read as is and never truncated on disk. A file over its
// budget is kept; adds are refused until it shrinks.
//
// The system prompt uses a Snapshot frozen at Open (or Load, for a new
// session): writes during a session reach the files at once but not the
// prompt, which keeps the provider's prompt cache valid.
//
// Concurrency: a Store is safe for concurrent use; operations are
// serialised by a mutex and, across processes, by a lock file (Unix).
package memory
