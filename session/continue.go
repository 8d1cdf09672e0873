package session

import (
	"context"
	"fmt"

	"github.com/hermes-go/hermes/llm"
)

// ContinueSession starts child as the continuation of parentID after a
// context compression, in one transaction: the child's row (its parent set
// to parentID; an empty Source is "cli"), its messages msgs, and the end
// of the parent with reason. All of it is stored or none: a failure or a
// crash leaves the parent as it was, resumable, and never a child missing
// some of its messages for Latest to pick. *Store is an
// agent.SessionContinuer.
func (s *Store) ContinueSession(ctx context.Context, parentID, reason string, child llm.SessionMeta, msgs []llm.Message) error {
	if child.ID == "" {
		return fmt.Errorf("session: continue %s: the continuation has no session id", parentID)
	}
	if child.Source == "" {
		child.Source = "cli"
	}
	now := nanos(s.now())
	tx, err := s.w.BeginTx(ctx, nil)
	if err != nil {
		return wrap("continue", parentID, err)
	}
	defer tx.Rollback()
	res, err := tx.ExecContext(ctx, `UPDATE sessions SET ended_at = ?, end_reason = ? WHERE id = ?`, now, nullable(reason), parentID)
	if err != nil {
		return wrap("continue", parentID, err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return wrap("continue", parentID, err)
	}
	if n == 0 {
		return fmt.Errorf("session: continue %s: %w", parentID, ErrNotFound)
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO sessions
		(id, source, model, provider, cwd, parent_session_id, started_at, last_active)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
		child.ID, child.Source, child.Model, child.Provider, child.Cwd, parentID, now, now); err != nil {
		if isConstraint(err) {
			return fmt.Errorf("session: continue %s in %s: %w", parentID, child.ID, ErrExists)
		}
		return wrap("continue", parentID, err)
	}
	stmt := tx.StmtContext(ctx, s.appendStmt)
	ids := make([]int64, 0, len(msgs))
	for i, m := range msgs {
		args, err := s.messageArgs(child.ID, m)
		if err != nil {
			return fmt.Errorf("session: continue %s in %s: message %d: %w", parentID, child.ID, i, err)
		}
		res, err := stmt.ExecContext(ctx, args...)
		if err == nil {
			var id int64
			id, err = res.LastInsertId()
			ids = append(ids, id)
		}
		if err != nil {
			return wrap("continue "+parentID+" in", child.ID, err)
		}
	}
	if err := s.indexMessages(ctx, tx, ids); err != nil {
		return wrap("continue "+parentID+" in", child.ID, err)
	}
	return wrap("continue", parentID, tx.Commit())
}
