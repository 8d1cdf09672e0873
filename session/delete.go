package session

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// Delete removes a session and its messages. Its children are re-linked
// to its parent, so lineages stay connected. A session another process is
// writing is refused (ErrBusy).
func (s *Store) Delete(ctx context.Context, id string) error {
	release, err := s.Acquire(ctx, id)
	switch {
	case errors.Is(err, errors.ErrUnsupported): // no locks on this system
	case err != nil:
		return fmt.Errorf("session: delete %s: %w", id, err)
	default:
		defer release()
	}
	tx, err := s.w.BeginTx(ctx, nil)
	if err != nil {
		return wrap("delete", id, err)
	}
	defer tx.Rollback()
	n, err := deleteIn(ctx, tx, []string{id})
	if err != nil {
		return wrap("delete", id, err)
	}
	if n == 0 {
		return fmt.Errorf("session: delete %s: %w", id, ErrNotFound)
	}
	return wrap("delete", id, tx.Commit())
}

// pruneWhere selects the sessions Prune deletes: last active before the
// first argument, and ended or idle since the second.
const pruneWhere = `last_active < ? AND (ended_at IS NOT NULL OR last_active < ?)`

// pruneArgs are pruneWhere's arguments. A session still open (a process
// may be using it) is kept unless it has also been idle for a day: then
// the process that had it is gone without ending it (a crash, a kill).
func (s *Store) pruneArgs(olderThan time.Time) []any {
	return []any{olderThan.UnixNano(), min(olderThan.UnixNano(), s.now().Add(-24*time.Hour).UnixNano())}
}

// Prunable returns the sessions Prune(olderThan) would delete now, most
// recently active first, without deleting anything.
func (s *Store) Prunable(ctx context.Context, olderThan time.Time) ([]Session, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT `+sessionColumns+` FROM sessions WHERE `+pruneWhere+
		` ORDER BY last_active DESC, id DESC`, s.pruneArgs(olderThan)...)
	if err != nil {
		return nil, wrap("prune", "", err)
	}
	defer rows.Close()
	var out []Session
	for rows.Next() {
		x, err := scanSession(rows)
		if err != nil {
			return nil, wrap("prune", "", err)
		}
		out = append(out, x)
	}
	return out, wrap("prune", "", rows.Err())
}

// Prune deletes sessions last active before olderThan, with their
// messages, and returns how many it deleted. Sessions still open are kept
// as pruneArgs says, and so is any session a process is writing (it
// holds its lock).
func (s *Store) Prune(ctx context.Context, olderThan time.Time) (int, error) {
	tx, err := s.w.BeginTx(ctx, nil)
	if err != nil {
		return 0, wrap("prune", "", err)
	}
	defer tx.Rollback()
	rows, err := tx.QueryContext(ctx, `SELECT id FROM sessions WHERE `+pruneWhere+` ORDER BY started_at DESC`, s.pruneArgs(olderThan)...)
	if err != nil {
		return 0, wrap("prune", "", err)
	}
	var ids []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			rows.Close()
			return 0, wrap("prune", "", err)
		}
		ids = append(ids, id)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return 0, wrap("prune", "", err)
	}
	free := ids[:0]
	for _, id := range ids {
		release, err := s.Acquire(ctx, id)
		switch {
		case errors.Is(err, errors.ErrUnsupported):
		case err != nil:
			continue // in use: kept
		default:
			defer release()
		}
		free = append(free, id)
	}
	n, err := deleteIn(ctx, tx, free)
	if err != nil {
		return 0, wrap("prune", "", err)
	}
	return n, wrap("prune", "", tx.Commit())
}

// deleteIn deletes sessions one by one inside tx, splicing each one's
// children onto its parent first.
func deleteIn(ctx context.Context, tx *sql.Tx, ids []string) (int, error) {
	deleted := 0
	for _, id := range ids {
		if _, err := tx.ExecContext(ctx, `UPDATE sessions
			SET parent_session_id = (SELECT parent_session_id FROM sessions WHERE id = ?1)
			WHERE parent_session_id = ?1`, id); err != nil {
			return deleted, err
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM messages WHERE session_id = ?`, id); err != nil {
			return deleted, err
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM session_state WHERE session_id = ?`, id); err != nil {
			return deleted, err
		}
		res, err := tx.ExecContext(ctx, `DELETE FROM sessions WHERE id = ?`, id)
		if err != nil {
			return deleted, err
		}
		n, err := res.RowsAffected()
		if err != nil {
			return deleted, err
		}
		deleted += int(n)
	}
	return deleted, nil
}
