package session

import (
	"context"
	"os"
)

// Stats describes the store, for `hermes sessions stats`.
type Stats struct {
	Sessions int            `json:"sessions"`
	Open     int            `json:"open"`
	Messages int            `json:"messages"`
	BySource map[string]int `json:"by_source"`
	// FileBytes is the size of the database file and its WAL.
	FileBytes int64 `json:"file_bytes"`
}

// Stats counts sessions and messages.
func (s *Store) Stats(ctx context.Context) (Stats, error) {
	st := Stats{BySource: map[string]int{}}
	if err := s.r.QueryRowContext(ctx, `SELECT count(*), count(*) FILTER (WHERE ended_at IS NULL),
		COALESCE(sum(message_count), 0) FROM sessions`).Scan(&st.Sessions, &st.Open, &st.Messages); err != nil {
		return st, wrap("stats", "", err)
	}
	rows, err := s.r.QueryContext(ctx, `SELECT source, count(*) FROM sessions GROUP BY source ORDER BY source`)
	if err != nil {
		return st, wrap("stats", "", err)
	}
	defer rows.Close()
	for rows.Next() {
		var src string
		var n int
		if err := rows.Scan(&src, &n); err != nil {
			return st, wrap("stats", "", err)
		}
		st.BySource[src] = n
	}
	if err := rows.Err(); err != nil {
		return st, wrap("stats", "", err)
	}
	for _, p := range []string{s.path, s.path + "-wal"} {
		if fi, err := os.Stat(p); err == nil {
			st.FileBytes += fi.Size()
		}
	}
	return st, nil
}

// Optimize merges the full-text index, refreshes the query planner's
// statistics, checkpoints the WAL and reclaims free pages (VACUUM). It
// can take a while on a large store; run it from `hermes sessions
// optimize` or after a large Prune, not in a turn.
func (s *Store) Optimize(ctx context.Context) error {
	for _, q := range []string{
		`INSERT INTO messages_fts(messages_fts) VALUES ('optimize')`,
		`PRAGMA optimize`,
		`PRAGMA wal_checkpoint(TRUNCATE)`,
		`VACUUM`,
	} {
		if _, err := s.w.ExecContext(ctx, q); err != nil {
			return wrap("optimize", s.path, err)
		}
	}
	return nil
}

// ReleaseMemory hands back the memory the store's connections cached
// while busy: the writer's page cache is shrunk and idle readers are
// closed (new ones open as reads come). A long-lived server calls it
// when it goes quiet.
func (s *Store) ReleaseMemory(ctx context.Context) error {
	_, err := s.w.ExecContext(ctx, `PRAGMA shrink_memory`)
	s.r.SetMaxIdleConns(0)
	s.r.SetMaxIdleConns(s.readers)
	return wrap("release memory", "", err)
}
