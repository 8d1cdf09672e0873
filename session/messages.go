package session

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/hermes-go/hermes/llm"
)

// appendSQL inserts one message at the end of its session. The sequence
// number comes from the (session_id, seq) index and a trigger updates
// the session counters; the transaction that runs it indexes the message
// for search (indexMessages) before it commits.
const appendSQL = `INSERT INTO messages
	(session_id, seq, role, content, tool_calls, tool_call_id, name, reasoning,
	 reasoning_details, reasoning_items, finish_reason, timestamp, token_count, images)
	VALUES (?1, (SELECT COALESCE(MAX(seq), 0) + 1 FROM messages WHERE session_id = ?1),
	        ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)`

// AppendMessage stores m at the end of the session's transcript, after
// redaction. A message without a time is stamped now.
func (s *Store) AppendMessage(ctx context.Context, sessionID string, m llm.Message) error {
	return s.AppendMessageWith(ctx, sessionID, m, llm.PendingWrites{})
}

// recordSQL records a session unless it exists; promptSQL sets its
// system prompt.
const (
	recordSQL = `INSERT INTO sessions (id, source, model, provider, cwd, parent_session_id, started_at, last_active)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO NOTHING`
	promptSQL = `INSERT INTO session_state (session_id, system_prompt) VALUES (?, ?)
		ON CONFLICT (session_id) DO UPDATE SET system_prompt = excluded.system_prompt`
)

// AppendMessageWith stores m as AppendMessage does, together with the
// writes p holds (the session's record unless it exists, its system
// prompt, usage), in one transaction: all of them or none. It makes
// *Store an agent.PendingStore.
func (s *Store) AppendMessageWith(ctx context.Context, sessionID string, m llm.Message, p llm.PendingWrites) error {
	args, err := s.messageArgs(sessionID, m)
	if err != nil {
		return fmt.Errorf("session: append message to %s: %w", sessionID, err)
	}
	prompt := s.clean(p.SystemPrompt)
	err = s.inTxIndexed(func(tx *sql.Tx) ([]int64, error) {
		if p.Session != nil {
			meta := *p.Session
			if meta.Source == "" {
				meta.Source = "cli"
			}
			now := nanos(s.now())
			if _, err := tx.Stmt(s.stmts.record).Exec(meta.ID, meta.Source, meta.Model, meta.Provider, meta.Cwd, nullable(meta.ParentID), now, now); err != nil {
				return nil, fmt.Errorf("record the session: %w", err)
			}
		}
		if prompt != "" {
			if _, err := tx.Stmt(s.stmts.prompt).Exec(sessionID, prompt); err != nil {
				return nil, fmt.Errorf("set the system prompt: %w", err)
			}
		}
		if p.APICalls > 0 {
			u := p.Usage
			if _, err := tx.Stmt(s.stmts.usage).Exec(u.InputTokens, u.OutputTokens, u.CacheReadTokens,
				u.CacheWriteTokens, u.ReasoningTokens, p.APICalls, sessionID); err != nil {
				return nil, fmt.Errorf("add usage: %w", err)
			}
		}
		res, err := tx.Stmt(s.appendStmt).Exec(args...)
		if err != nil {
			return nil, err
		}
		id, err := res.LastInsertId()
		return []int64{id}, err
	})
	if err != nil {
		if isConstraint(err) {
			if _, gerr := s.Get(ctx, sessionID); errors.Is(gerr, ErrNotFound) {
				return fmt.Errorf("session: append message to %s: %w", sessionID, ErrNotFound)
			}
		}
		return wrap("append message to", sessionID, err)
	}
	return nil
}

// AppendMessages stores several messages in one transaction: all or none.
func (s *Store) AppendMessages(ctx context.Context, sessionID string, ms ...llm.Message) error {
	tx, err := s.w.BeginTx(ctx, nil)
	if err != nil {
		return wrap("append messages to", sessionID, err)
	}
	defer tx.Rollback()
	stmt := tx.StmtContext(ctx, s.appendStmt)
	ids := make([]int64, 0, len(ms))
	for i, m := range ms {
		args, err := s.messageArgs(sessionID, m)
		if err != nil {
			return fmt.Errorf("session: append message %d to %s: %w", i, sessionID, err)
		}
		res, err := stmt.ExecContext(ctx, args...)
		if err == nil {
			var id int64
			id, err = res.LastInsertId()
			ids = append(ids, id)
		}
		if err != nil {
			return wrap("append messages to", sessionID, err)
		}
	}
	if err := s.indexMessages(ctx, tx, ids); err != nil {
		return wrap("append messages to", sessionID, err)
	}
	return wrap("append messages to", sessionID, tx.Commit())
}

func (s *Store) messageArgs(sessionID string, m llm.Message) ([]any, error) {
	ts := m.Time
	if ts.IsZero() {
		ts = s.now()
	}
	content := s.clean(m.Content)
	reasoning := s.clean(m.Reasoning)
	var toolCalls any
	chars := len(content) + len(reasoning)
	if len(m.ToolCalls) > 0 {
		calls := make([]llm.ToolCall, len(m.ToolCalls))
		for i, c := range m.ToolCalls {
			c.Arguments = s.clean(c.Arguments)
			calls[i] = c
			chars += len(c.Name) + len(c.Arguments)
		}
		b, err := json.Marshal(calls)
		if err != nil {
			return nil, fmt.Errorf("encode tool calls: %w", err)
		}
		toolCalls = string(b)
	}
	details, err := rawList(m.ReasoningDetails)
	if err != nil {
		return nil, fmt.Errorf("encode reasoning details: %w", err)
	}
	items, err := rawList(m.ReasoningItems)
	if err != nil {
		return nil, fmt.Errorf("encode reasoning items: %w", err)
	}
	images, err := s.imagesArg(m.Images)
	if err != nil {
		return nil, fmt.Errorf("encode images: %w", err)
	}
	return []any{sessionID, string(m.Role), content, toolCalls, nullable(m.ToolCallID), nullable(m.Name),
		nullable(reasoning), details, items, nullable(string(m.FinishReason)), ts.UnixNano(),
		(chars+3)/4 + len(m.Images)*llm.ImageTokens, images}, nil
}

// imagesArg encodes a message's images. Their data is stored as it is,
// never run through the redactor: base64 is no text a secret hides in,
// and masking it would corrupt the image. A URL may carry a token in its
// query, so it is redacted.
func (s *Store) imagesArg(images []llm.Image) (any, error) {
	if len(images) == 0 {
		return nil, nil
	}
	out := make([]llm.Image, len(images))
	for i, im := range images {
		im.URL = s.clean(im.URL)
		out[i] = im
	}
	b, err := json.Marshal(out)
	if err != nil {
		return nil, err
	}
	return string(b), nil
}

func rawList(l []json.RawMessage) (any, error) {
	if len(l) == 0 {
		return nil, nil
	}
	b, err := json.Marshal(l)
	if err != nil {
		return nil, err
	}
	return string(b), nil
}

const messageColumns = `role, content, tool_calls, tool_call_id, name, reasoning,
	reasoning_details, reasoning_items, finish_reason, timestamp, images`

// Messages returns the session's transcript in order.
func (s *Store) Messages(ctx context.Context, id string) ([]llm.Message, error) {
	return s.queryMessages(ctx, id, `SELECT `+messageColumns+` FROM messages WHERE session_id = ? ORDER BY seq`, id)
}

// MessageRange returns messages with first <= seq <= last (1-based).
func (s *Store) MessageRange(ctx context.Context, id string, first, last int) ([]llm.Message, error) {
	return s.queryMessages(ctx, id, `SELECT `+messageColumns+` FROM messages
		WHERE session_id = ? AND seq BETWEEN ? AND ? ORDER BY seq`, id, first, last)
}

func (s *Store) queryMessages(ctx context.Context, id, query string, args ...any) ([]llm.Message, error) {
	if _, err := s.Get(ctx, id); err != nil {
		return nil, err
	}
	rows, err := s.r.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, wrap("messages", id, err)
	}
	defer rows.Close()
	var out []llm.Message
	for rows.Next() {
		m, err := scanMessage(rows)
		if err != nil {
			return nil, wrap("messages", id, err)
		}
		out = append(out, m)
	}
	if err := rows.Err(); err != nil {
		return nil, wrap("messages", id, err)
	}
	return out, nil
}

func scanMessage(sc interface{ Scan(...any) error }) (llm.Message, error) {
	var (
		m                                      llm.Message
		role                                   string
		calls, callID, name, reasoning, finish sql.NullString
		details, items, images                 sql.NullString
		ts                                     int64
	)
	if err := sc.Scan(&role, &m.Content, &calls, &callID, &name, &reasoning, &details, &items, &finish, &ts, &images); err != nil {
		return m, err
	}
	m.Role = llm.Role(role)
	m.ToolCallID, m.Name, m.Reasoning = callID.String, name.String, reasoning.String
	m.FinishReason = llm.FinishReason(finish.String)
	m.Time = time.Unix(0, ts)
	if calls.Valid {
		if err := json.Unmarshal([]byte(calls.String), &m.ToolCalls); err != nil {
			return m, fmt.Errorf("decode tool calls: %w", err)
		}
	}
	if details.Valid {
		if err := json.Unmarshal([]byte(details.String), &m.ReasoningDetails); err != nil {
			return m, fmt.Errorf("decode reasoning details: %w", err)
		}
	}
	if items.Valid {
		if err := json.Unmarshal([]byte(items.String), &m.ReasoningItems); err != nil {
			return m, fmt.Errorf("decode reasoning items: %w", err)
		}
	}
	if images.Valid {
		if err := json.Unmarshal([]byte(images.String), &m.Images); err != nil {
			return m, fmt.Errorf("decode images: %w", err)
		}
	}
	return m, nil
}
