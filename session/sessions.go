package session

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/hermes-go/hermes/llm"
)

// Session is one conversation's row.
type Session struct {
	ID string `json:"id"`
	// Source is where the session came from: cli, api, acp, subagent, cron, ...
	Source   string `json:"source"`
	Model    string `json:"model,omitempty"`
	Provider string `json:"provider,omitempty"`
	// Cwd is the working directory (workspace) the session ran in.
	Cwd string `json:"cwd,omitempty"`
	// Title is unique among sessions that have one; empty means none.
	Title string `json:"title,omitempty"`
	// ParentID links a continuation (after context compression) or a
	// subagent to the session it came from.
	ParentID   string    `json:"parent_session_id,omitempty"`
	StartedAt  time.Time `json:"started_at"`
	LastActive time.Time `json:"last_active"`
	// EndedAt is zero while the session is open.
	EndedAt   time.Time `json:"ended_at,omitzero"`
	EndReason string    `json:"end_reason,omitempty"`
	// Usage sums the provider-reported usage of every API call.
	Usage        llm.Usage `json:"usage"`
	APICalls     int       `json:"api_calls"`
	MessageCount int       `json:"message_count"`
	// Preview is the start of the first user message.
	Preview string `json:"preview,omitempty"`
	// SystemPrompt is filled by Get only (List leaves it empty).
	SystemPrompt string `json:"system_prompt,omitempty"`
}

// CreateSession inserts a session row. An empty ID gets NewID, an empty
// Source is "cli", a zero StartedAt is now. It returns the stored row.
func (s *Store) CreateSession(ctx context.Context, in Session) (Session, error) {
	if in.ID == "" {
		in.ID = NewID(s.now)
	}
	if in.Source == "" {
		in.Source = "cli"
	}
	if in.StartedAt.IsZero() {
		in.StartedAt = s.now()
	}
	in.LastActive = in.StartedAt
	in.Title = strings.TrimSpace(in.Title)
	in.SystemPrompt = s.clean(in.SystemPrompt)
	tx, err := s.w.BeginTx(ctx, nil)
	if err != nil {
		return Session{}, wrap("create", in.ID, err)
	}
	defer tx.Rollback()
	_, err = tx.ExecContext(ctx, `INSERT INTO sessions
		(id, source, model, provider, cwd, title, parent_session_id, started_at, last_active)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		in.ID, in.Source, in.Model, in.Provider, in.Cwd, nullable(in.Title), nullable(in.ParentID),
		nanos(in.StartedAt), nanos(in.StartedAt))
	if err != nil {
		tx.Rollback()
		if isConstraint(err) {
			return Session{}, s.createConflict(ctx, in, err)
		}
		return Session{}, wrap("create", in.ID, err)
	}
	if in.SystemPrompt != "" {
		if _, err := tx.ExecContext(ctx, `INSERT INTO session_state (session_id, system_prompt) VALUES (?, ?)`,
			in.ID, in.SystemPrompt); err != nil {
			return Session{}, wrap("create", in.ID, err)
		}
	}
	if err := tx.Commit(); err != nil {
		return Session{}, wrap("create", in.ID, err)
	}
	return in, nil
}

// Ensure returns the session in.ID, creating it from in when it does not
// exist yet (a resumed session already does). An existing session is
// returned as stored; in's other fields are then ignored.
func (s *Store) Ensure(ctx context.Context, in Session) (Session, error) {
	if in.ID != "" {
		if x, err := s.Get(ctx, in.ID); err == nil || !errors.Is(err, ErrNotFound) {
			return x, err
		}
	}
	x, err := s.CreateSession(ctx, in)
	if errors.Is(err, ErrExists) { // created meanwhile by another process
		return s.Get(ctx, in.ID)
	}
	return x, err
}

// EnsureSession records the session meta describes, unless it exists
// already (a resumed session). It is what the agent calls before the
// first message of a session; *Store is an agent.Store.
func (s *Store) EnsureSession(ctx context.Context, meta llm.SessionMeta) error {
	_, err := s.Ensure(ctx, Session{ID: meta.ID, Source: meta.Source, ParentID: meta.ParentID,
		Model: meta.Model, Provider: meta.Provider, Cwd: meta.Cwd})
	return err
}

// createConflict explains which constraint a new session broke.
func (s *Store) createConflict(ctx context.Context, in Session, err error) error {
	if _, gerr := s.Get(ctx, in.ID); gerr == nil {
		return fmt.Errorf("session: create %s: %w", in.ID, ErrExists)
	}
	if in.ParentID != "" {
		if _, gerr := s.Get(ctx, in.ParentID); errors.Is(gerr, ErrNotFound) {
			return fmt.Errorf("session: create %s: parent %s: %w", in.ID, in.ParentID, ErrNotFound)
		}
	}
	if in.Title != "" {
		if owner, ok := s.titleOwner(ctx, in.Title); ok {
			return fmt.Errorf("session: create %s: title %q is used by session %s: %w", in.ID, in.Title, owner, ErrTitleTaken)
		}
	}
	return wrap("create", in.ID, err)
}

const sessionColumns = `id, source, model, provider, cwd, title, parent_session_id, started_at, last_active,
	ended_at, end_reason, input_tokens, output_tokens, cache_read_tokens, cache_write_tokens,
	reasoning_tokens, api_calls, message_count, preview`

// scanSession reads the columns of sessionColumns, plus any extra targets.
func scanSession(sc interface{ Scan(...any) error }, extra ...any) (Session, error) {
	var (
		x                     Session
		title, parent, reason sql.NullString
		started, last, ended  sql.NullInt64
	)
	dest := []any{&x.ID, &x.Source, &x.Model, &x.Provider, &x.Cwd, &title, &parent, &started, &last,
		&ended, &reason, &x.Usage.InputTokens, &x.Usage.OutputTokens, &x.Usage.CacheReadTokens,
		&x.Usage.CacheWriteTokens, &x.Usage.ReasoningTokens, &x.APICalls, &x.MessageCount, &x.Preview}
	if err := sc.Scan(append(dest, extra...)...); err != nil {
		return Session{}, err
	}
	x.Title, x.ParentID, x.EndReason = title.String, parent.String, reason.String
	x.StartedAt, x.LastActive, x.EndedAt = fromNanos(started), fromNanos(last), fromNanos(ended)
	x.Usage.TotalTokens = x.Usage.InputTokens + x.Usage.OutputTokens
	return x, nil
}

// Get returns the session with its system prompt.
func (s *Store) Get(ctx context.Context, id string) (Session, error) {
	var prompt sql.NullString
	row := s.r.QueryRowContext(ctx, `SELECT `+prefixed("s.", sessionColumns)+`, st.system_prompt
		FROM sessions s LEFT JOIN session_state st ON st.session_id = s.id WHERE s.id = ?`, id)
	x, err := scanSession(row, &prompt)
	if errors.Is(err, sql.ErrNoRows) {
		return Session{}, fmt.Errorf("session: get %s: %w", id, ErrNotFound)
	}
	if err != nil {
		return Session{}, wrap("get", id, err)
	}
	x.SystemPrompt = prompt.String
	return x, nil
}

// Exists reports whether the session is stored. It reads one index
// entry through a statement prepared once, where Get reads the whole row
// and the system prompt: a server naming a new session for every request
// asks it each time.
func (s *Store) Exists(ctx context.Context, id string) (bool, error) {
	var one int
	err := s.existsStmt.QueryRowContext(ctx, id).Scan(&one)
	if errors.Is(err, sql.ErrNoRows) {
		return false, nil
	}
	if err != nil {
		return false, wrap("look up", id, err)
	}
	return true, nil
}

const existsSQL = `SELECT 1 FROM sessions WHERE id = ?`

// HasOther reports whether the store holds a session other than id,
// through a statement prepared once (session_search asks it before each
// model call).
func (s *Store) HasOther(ctx context.Context, id string) (bool, error) {
	var one int
	err := s.otherStmt.QueryRowContext(ctx, id).Scan(&one)
	if errors.Is(err, sql.ErrNoRows) {
		return false, nil
	}
	if err != nil {
		return false, wrap("look up others than", id, err)
	}
	return true, nil
}

const otherSQL = `SELECT 1 FROM sessions WHERE id != ? LIMIT 1`

const usageSQL = `UPDATE sessions SET
	input_tokens = input_tokens + ?, output_tokens = output_tokens + ?,
	cache_read_tokens = cache_read_tokens + ?, cache_write_tokens = cache_write_tokens + ?,
	reasoning_tokens = reasoning_tokens + ?, api_calls = api_calls + ?
	WHERE id = ?`

// AddUsage adds one or more API calls' usage to the session's counters.
// Call it after every API call with that call's usage (a delta), so the
// counters survive a crash mid-turn.
func (s *Store) AddUsage(ctx context.Context, id string, u llm.Usage, apiCalls int) error {
	return s.batchedOne("add usage", id, s.stmts.usage,
		u.InputTokens, u.OutputTokens, u.CacheReadTokens, u.CacheWriteTokens, u.ReasoningTokens, apiCalls, id)
}

// SetSystemPrompt stores the prompt the session was built with, so a
// resumed session can send the very same bytes (and keep the provider's
// prompt cache warm).
func (s *Store) SetSystemPrompt(ctx context.Context, id, prompt string) error {
	return s.setState(ctx, "set system prompt", id, "system_prompt", nullable(s.clean(prompt)))
}

// setState upserts one column of session_state.
func (s *Store) setState(ctx context.Context, op, id, column string, v any) error {
	err := s.inTx(func(tx *sql.Tx) error {
		_, err := tx.Exec(`INSERT INTO session_state (session_id, `+column+`) VALUES (?, ?)
		ON CONFLICT (session_id) DO UPDATE SET `+column+` = excluded.`+column, id, v)
		return err
	})
	if err != nil && isConstraint(err) {
		return fmt.Errorf("session: %s %s: %w", op, id, ErrNotFound)
	}
	return wrap(op, id, err)
}

// state reads one column of session_state; ErrNotFound when the session
// does not exist.
func (s *Store) state(ctx context.Context, op, id, column string) (sql.NullString, error) {
	var v sql.NullString
	err := s.r.QueryRowContext(ctx, `SELECT st.`+column+` FROM sessions s
		LEFT JOIN session_state st ON st.session_id = s.id WHERE s.id = ?`, id).Scan(&v)
	if errors.Is(err, sql.ErrNoRows) {
		return v, fmt.Errorf("session: %s %s: %w", op, id, ErrNotFound)
	}
	return v, wrap(op, id, err)
}

// SystemPrompt returns the stored prompt; empty when none was stored.
func (s *Store) SystemPrompt(ctx context.Context, id string) (string, error) {
	p, err := s.state(ctx, "system prompt", id, "system_prompt")
	return p.String, err
}

// SetModel records the model and provider now serving the session (after
// a /model switch or a provider fallback).
func (s *Store) SetModel(ctx context.Context, id, model, provider string) error {
	return s.execOne(ctx, "set model", id,
		`UPDATE sessions SET model = ?, provider = ? WHERE id = ?`, model, provider, id)
}

// SetTodo stores the session's task list (a JSON document; nil clears it).
func (s *Store) SetTodo(ctx context.Context, id string, state json.RawMessage) error {
	var v any
	if len(state) > 0 {
		if !json.Valid(state) {
			return fmt.Errorf("session: set todo %s: not valid JSON", id)
		}
		v = string(state)
	}
	return s.setState(ctx, "set todo", id, "todo", v)
}

// Todo returns the stored task list, nil when none.
func (s *Store) Todo(ctx context.Context, id string) (json.RawMessage, error) {
	t, err := s.state(ctx, "todo", id, "todo")
	if err != nil || !t.Valid {
		return nil, err
	}
	return json.RawMessage(t.String), nil
}

// EndSession marks the session ended now with a reason (user_exit,
// compression, completed, ...). Ending an ended session updates the
// reason and time.
func (s *Store) EndSession(ctx context.Context, id, reason string) error {
	return s.execOne(ctx, "end", id,
		`UPDATE sessions SET ended_at = ?, end_reason = ? WHERE id = ?`, nanos(s.now()), nullable(reason), id)
}

// Reopen clears the end mark, for a resumed session.
func (s *Store) Reopen(ctx context.Context, id string) error {
	return s.execOne(ctx, "reopen", id,
		`UPDATE sessions SET ended_at = NULL, end_reason = NULL WHERE id = ?`, id)
}

func nullable(s string) any {
	if s == "" {
		return nil
	}
	return s
}
