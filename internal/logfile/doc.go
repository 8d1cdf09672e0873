// Package logfile is hermes's structured log: JSON lines (log/slog) in
// HERMES_HOME/logs/hermes.log, appended to by every hermes process
// (chat, one-shot, gateway, serve, cron), rotated by size and read back by
// `hermes logs`.
//
// Writing: Open builds the logger. Every record goes through a masking
// handler first (redact: the message and every attribute, by the
// secrets' values and by their shape), then a JSON handler, then a
// Writer. A Writer appends each record with one write to a file opened
// with O_APPEND, so lines from several processes interleave whole. When a
// write would take the file past its size cap, the Writer takes an
// exclusive flock on hermes.log.lock, checks the size again (another
// process may have rotated meanwhile), shifts hermes.log.1 … .N-1 up by
// one (dropping the oldest), renames hermes.log to hermes.log.1 and opens
// a new hermes.log. Before each write it checks that its file is still
// the one at the path, and reopens the path if another process rotated
// it away. hermes.log therefore stays under the cap (unless one line is
// longer than the cap); a rotated file may exceed it by the lines
// another process wrote before it noticed.
//
// Reading: Scan reads the rotated files, oldest first, then hermes.log,
// handing each line that a Filter keeps to a callback; Follow goes on
// reading hermes.log as it grows, and across rotations, until told to
// stop (a file rotated in and out again between two looks is missed).
//
// Concurrency: a Writer is safe for concurrent use; Scan and Follow use
// no shared state.
package logfile
