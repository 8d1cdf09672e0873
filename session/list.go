package session

import (
	"context"
	"strings"
)

// ListOptions filter and page List. The zero value lists the 50 most
// recently active sessions of every source.
type ListOptions struct {
	// Limit caps the result; 0 means 50, negative means no cap.
	Limit  int
	Offset int
	// Source keeps only sessions from this source ("cli", "api", ...).
	Source string
	// ExcludeSources drops sessions from these sources (e.g. "subagent").
	ExcludeSources []string
	// RootsOnly keeps only sessions without a parent: one row per lineage
	// head, the way a user thinks of conversations.
	RootsOnly bool
	// ParentID keeps only the direct children of this session.
	ParentID string
	// Cwd keeps only sessions that ran in this working directory.
	Cwd string
}

// Summary is a listed session with its lineage.
type Summary struct {
	Session
	// Children counts the sessions whose parent is this one
	// (continuations after compression, subagents).
	Children int `json:"children"`
}

// List returns sessions, most recently active first. System prompts are
// not loaded.
func (s *Store) List(ctx context.Context, o ListOptions) ([]Summary, error) {
	var (
		where []string
		args  []any
	)
	if o.Source != "" {
		where = append(where, "s.source = ?")
		args = append(args, o.Source)
	}
	if len(o.ExcludeSources) > 0 {
		where = append(where, "s.source NOT IN ("+placeholders(len(o.ExcludeSources))+")")
		for _, x := range o.ExcludeSources {
			args = append(args, x)
		}
	}
	if o.RootsOnly {
		where = append(where, "s.parent_session_id IS NULL")
	}
	if o.ParentID != "" {
		where = append(where, "s.parent_session_id = ?")
		args = append(args, o.ParentID)
	}
	if o.Cwd != "" {
		where = append(where, "s.cwd = ?")
		args = append(args, o.Cwd)
	}
	q := `SELECT ` + prefixed("s.", sessionColumns) + `, s.child_count FROM sessions s`
	if len(where) > 0 {
		q += " WHERE " + strings.Join(where, " AND ")
	}
	limit := o.Limit
	if limit == 0 {
		limit = 50
	}
	q += " ORDER BY s.last_active DESC, s.id DESC LIMIT ? OFFSET ?"
	args = append(args, limit, max(o.Offset, 0))

	rows, err := s.r.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, wrap("list", "", err)
	}
	defer rows.Close()
	out := make([]Summary, 0, min(uint(limit), 1024))
	for rows.Next() {
		var sum Summary
		x, err := scanSession(rows, &sum.Children)
		if err != nil {
			return nil, wrap("list", "", err)
		}
		sum.Session = x
		out = append(out, sum)
	}
	if err := rows.Err(); err != nil {
		return nil, wrap("list", "", err)
	}
	return out, nil
}

// Lineage returns the chain of sessions from the root to id (inclusive).
func (s *Store) Lineage(ctx context.Context, id string) ([]Session, error) {
	rows, err := s.r.QueryContext(ctx, `WITH RECURSIVE up(id, depth) AS (
			SELECT id, 0 FROM sessions WHERE id = ?
			UNION ALL
			SELECT s.parent_session_id, up.depth + 1 FROM sessions s JOIN up ON s.id = up.id
			WHERE s.parent_session_id IS NOT NULL AND up.depth < 10000
		)
		SELECT `+prefixed("s.", sessionColumns)+` FROM up JOIN sessions s ON s.id = up.id ORDER BY up.depth DESC`, id)
	if err != nil {
		return nil, wrap("lineage", id, err)
	}
	defer rows.Close()
	var out []Session
	for rows.Next() {
		x, err := scanSession(rows)
		if err != nil {
			return nil, wrap("lineage", id, err)
		}
		out = append(out, x)
	}
	if err := rows.Err(); err != nil {
		return nil, wrap("lineage", id, err)
	}
	if len(out) == 0 {
		return nil, wrap("lineage", id, ErrNotFound)
	}
	return out, nil
}

func placeholders(n int) string {
	return strings.TrimSuffix(strings.Repeat("?,", n), ",")
}

// prefixed qualifies a comma-separated column list with a table alias.
func prefixed(alias, cols string) string {
	parts := strings.Split(cols, ",")
	for i, p := range parts {
		parts[i] = alias + strings.TrimSpace(p)
	}
	return strings.Join(parts, ", ")
}
