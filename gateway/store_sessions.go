package gateway

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
)

// Session returns the id of the session the chat with this session key
// continues, "" when it has none.
func (s *Store) Session(ctx context.Context, key string) (id string, err error) {
	err = s.r.QueryRowContext(ctx, `SELECT session_id FROM chat_sessions WHERE key = ?`, key).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("gateway store: session of %s: %w", key, err)
	}
	return id, nil
}

// SetSession maps the chat with this session key to session id (after
// /new, or the chat's first message); an empty id removes the mapping.
func (s *Store) SetSession(ctx context.Context, key, id string) error {
	var err error
	if id == "" {
		_, err = s.w.ExecContext(ctx, `DELETE FROM chat_sessions WHERE key = ?`, key)
	} else {
		_, err = s.w.ExecContext(ctx, `INSERT INTO chat_sessions (key, session_id, updated_at) VALUES (?, ?, ?)
			ON CONFLICT (key) DO UPDATE SET session_id = excluded.session_id, updated_at = excluded.updated_at`,
			key, id, s.now().UnixNano())
	}
	if err != nil {
		return fmt.Errorf("gateway store: set session of %s: %w", key, err)
	}
	return nil
}
