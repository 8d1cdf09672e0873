package session

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// StoredResponse is a response the API server returned, kept so a later
// request can continue from it.
type StoredResponse struct {
	ID        string
	SessionID string
	// MessageCount is how many messages the session held once the
	// response was complete.
	MessageCount int
	CreatedAt    time.Time
	// Body is the response object as it was sent (JSON).
	Body []byte
}

// PutResponse records a response (replacing one with the same id).
func (s *Store) PutResponse(ctx context.Context, r StoredResponse) error {
	if r.CreatedAt.IsZero() {
		r.CreatedAt = s.now()
	}
	_, err := s.w.ExecContext(ctx, `INSERT OR REPLACE INTO api_responses (id, session_id, message_count, created_at, body)
		VALUES (?, ?, ?, ?, ?)`, r.ID, r.SessionID, r.MessageCount, nanos(r.CreatedAt), s.clean(string(r.Body)))
	return wrap("put response", r.ID, err)
}

// Response returns a recorded response; ErrNotFound when there is none
// (never recorded, deleted, or its session deleted).
func (s *Store) Response(ctx context.Context, id string) (StoredResponse, error) {
	var r StoredResponse
	var created sql.NullInt64
	var body string
	err := s.r.QueryRowContext(ctx, `SELECT id, session_id, message_count, created_at, body FROM api_responses WHERE id = ?`, id).
		Scan(&r.ID, &r.SessionID, &r.MessageCount, &created, &body)
	if errors.Is(err, sql.ErrNoRows) {
		return StoredResponse{}, fmt.Errorf("session: response %s: %w", id, ErrNotFound)
	}
	if err != nil {
		return StoredResponse{}, wrap("response", id, err)
	}
	r.CreatedAt, r.Body = fromNanos(created), []byte(body)
	return r, nil
}

// DeleteResponse forgets a recorded response; the conversation it was
// part of stays in its session. ErrNotFound when there is none.
func (s *Store) DeleteResponse(ctx context.Context, id string) error {
	res, err := s.w.ExecContext(ctx, `DELETE FROM api_responses WHERE id = ?`, id)
	if err != nil {
		return wrap("delete response", id, err)
	}
	if n, err := res.RowsAffected(); err != nil || n == 0 {
		if err != nil {
			return wrap("delete response", id, err)
		}
		return fmt.Errorf("session: delete response %s: %w", id, ErrNotFound)
	}
	return nil
}

// SetConversation points a named conversation at the session it
// continues in (it moves when a compression continues it in a child).
func (s *Store) SetConversation(ctx context.Context, name, sessionID string) error {
	_, err := s.w.ExecContext(ctx, `INSERT INTO api_conversations (name, session_id, updated_at) VALUES (?, ?, ?)
		ON CONFLICT(name) DO UPDATE SET session_id = excluded.session_id, updated_at = excluded.updated_at`,
		name, sessionID, nanos(s.now()))
	return wrap("set conversation", name, err)
}

// Conversation returns the session a named conversation continues in;
// ErrNotFound for a name never used (or whose session was deleted).
func (s *Store) Conversation(ctx context.Context, name string) (string, error) {
	var id string
	err := s.r.QueryRowContext(ctx, `SELECT session_id FROM api_conversations WHERE name = ?`, name).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		return "", fmt.Errorf("session: conversation %q: %w", name, ErrNotFound)
	}
	return id, wrap("conversation", name, err)
}
