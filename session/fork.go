package session

import (
	"context"
	"errors"
	"fmt"
)

// Fork copies a session (its settings, system prompt, task list and
// every message) into a new session whose parent is the original, for
// /branch and editor forks. The copy starts open, untitled unless title
// is given, with fresh counters.
func (s *Store) Fork(ctx context.Context, id, title string) (Session, error) {
	src, err := s.Get(ctx, id)
	if err != nil {
		return Session{}, err
	}
	todo, err := s.Todo(ctx, id)
	if err != nil {
		return Session{}, err
	}
	child := Session{
		ID: NewID(s.now), Source: src.Source, Model: src.Model, Provider: src.Provider, Cwd: src.Cwd,
		Title: title, ParentID: src.ID, StartedAt: s.now(),
	}
	tx, err := s.w.BeginTx(ctx, nil)
	if err != nil {
		return Session{}, wrap("fork", id, err)
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, `INSERT INTO sessions
		(id, source, model, provider, cwd, title, parent_session_id, started_at, last_active)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		child.ID, child.Source, child.Model, child.Provider, child.Cwd, nullable(child.Title), child.ParentID,
		nanos(child.StartedAt), nanos(child.StartedAt)); err != nil {
		if isConstraint(err) && title != "" {
			if owner, ok := s.titleOwner(ctx, title); ok {
				return Session{}, fmt.Errorf("session: fork %s: title %q is used by session %s: %w", id, title, owner, ErrTitleTaken)
			}
		}
		return Session{}, wrap("fork", id, err)
	}
	if src.SystemPrompt != "" || todo != nil {
		var t any
		if todo != nil {
			t = string(todo)
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO session_state (session_id, system_prompt, todo) VALUES (?, ?, ?)`,
			child.ID, nullable(src.SystemPrompt), t); err != nil {
			return Session{}, wrap("fork", id, err)
		}
	}
	// Text was redacted when first stored, so it is copied as is.
	if _, err := tx.ExecContext(ctx, `INSERT INTO messages
		(session_id, seq, role, content, tool_calls, tool_call_id, name, reasoning,
		 reasoning_details, reasoning_items, finish_reason, timestamp, token_count, images)
		SELECT ?, seq, role, content, tool_calls, tool_call_id, name, reasoning,
		 reasoning_details, reasoning_items, finish_reason, timestamp, token_count, images
		FROM messages WHERE session_id = ? ORDER BY seq`, child.ID, id); err != nil {
		return Session{}, wrap("fork", id, err)
	}
	if _, err := tx.ExecContext(ctx, indexSessionSQL, child.ID); err != nil {
		return Session{}, wrap("fork", id, fmt.Errorf("index for search: %w", err))
	}
	if err := tx.Commit(); err != nil {
		return Session{}, wrap("fork", id, err)
	}
	out, err := s.Get(ctx, child.ID)
	if errors.Is(err, ErrNotFound) {
		return Session{}, fmt.Errorf("session: fork %s: the copy vanished: %w", id, err)
	}
	return out, err
}
