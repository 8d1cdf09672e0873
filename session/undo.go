package session

import (
	"context"
	"fmt"
)

// DropLastTurn deletes the session's last exchange: its last user message
// and every message after it (the /undo of a chat). The session's message
// count and preview follow; the full-text index drops the rows through
// its trigger. It returns how many messages were deleted (0 when the
// session holds no user message).
func (s *Store) DropLastTurn(ctx context.Context, id string) (int, error) {
	tx, err := s.w.BeginTx(ctx, nil)
	if err != nil {
		return 0, wrap("drop last turn of", id, err)
	}
	defer tx.Rollback()
	res, err := tx.ExecContext(ctx, `DELETE FROM messages WHERE session_id = ?1
		AND seq >= (SELECT MAX(seq) FROM messages WHERE session_id = ?1 AND role = 'user')`, id)
	if err != nil {
		return 0, wrap("drop last turn of", id, err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return 0, wrap("drop last turn of", id, err)
	}
	if _, err := tx.ExecContext(ctx, `UPDATE sessions SET
		message_count = (SELECT COUNT(*) FROM messages WHERE session_id = ?1),
		preview = COALESCE((SELECT substr(content, 1, 200) FROM messages
		                    WHERE session_id = ?1 AND role = 'user' ORDER BY seq LIMIT 1), '')
		WHERE id = ?1`, id); err != nil {
		return 0, wrap("drop last turn of", id, err)
	}
	if err := tx.Commit(); err != nil {
		return 0, fmt.Errorf("session: drop last turn of %s: %w", id, err)
	}
	return int(n), nil
}
