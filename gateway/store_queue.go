package gateway

import (
	"context"
	"encoding/json"
	"fmt"
)

// Queued is a message waiting in its chat's busy queue.
type Queued struct {
	Seq     int64 // the queue's order: lower first
	Message Inbound
}

// storedInbound is an Inbound as the queue keeps it. An attachment keeps
// what describes it; its Open function does not survive the trip through
// the database, so a queued message read back has attachments with a nil
// Open.
type storedInbound struct {
	Platform    string             `json:"platform"`
	ChatID      string             `json:"chat_id"`
	ThreadID    string             `json:"thread_id,omitempty"`
	ChatType    ChatType           `json:"chat_type"`
	MessageID   string             `json:"message_id"`
	UserID      string             `json:"user_id"`
	UserName    string             `json:"user_name,omitempty"`
	Text        string             `json:"text"`
	Addressed   bool               `json:"addressed"`
	Attachments []storedAttachment `json:"attachments,omitempty"`
}

type storedAttachment struct {
	Kind string `json:"kind"`
	Name string `json:"name,omitempty"`
	MIME string `json:"mime,omitempty"`
	Size int64  `json:"size,omitempty"`
}

func toStoredInbound(m Inbound) storedInbound {
	st := storedInbound{
		Platform: m.Platform, ChatID: m.Chat.ChatID, ThreadID: m.Chat.ThreadID, ChatType: m.ChatType,
		MessageID: m.MessageID, UserID: m.UserID, UserName: m.UserName, Text: m.Text, Addressed: m.Addressed,
	}
	for _, a := range m.Attachments {
		st.Attachments = append(st.Attachments, storedAttachment{Kind: a.Kind, Name: a.Name, MIME: a.MIME, Size: a.Size})
	}
	return st
}

func (st storedInbound) inbound() Inbound {
	m := Inbound{
		Platform: st.Platform, Chat: ChatRef{ChatID: st.ChatID, ThreadID: st.ThreadID}, ChatType: st.ChatType,
		MessageID: st.MessageID, UserID: st.UserID, UserName: st.UserName, Text: st.Text, Addressed: st.Addressed,
	}
	for _, a := range st.Attachments {
		m.Attachments = append(m.Attachments, Attachment{Kind: a.Kind, Name: a.Name, MIME: a.MIME, Size: a.Size})
	}
	return m
}

// Enqueue appends m to the busy queue of the chat with session key key
// and returns its place. The message is on disk when Enqueue returns, so
// the chat may be told it is queued, and it is still queued after a
// restart.
func (s *Store) Enqueue(ctx context.Context, key string, m Inbound) (seq int64, err error) {
	b, err := json.Marshal(toStoredInbound(m))
	if err != nil {
		return 0, fmt.Errorf("gateway store: queue a message of %s: %w", key, err)
	}
	err = s.w.QueryRowContext(ctx, `INSERT INTO queue (key, message, queued_at) VALUES (?, ?, ?) RETURNING seq`,
		key, string(b), s.now().UnixNano()).Scan(&seq)
	if err != nil {
		return 0, fmt.Errorf("gateway store: queue a message of %s: %w", key, err)
	}
	return seq, nil
}

// Queued returns the messages queued for key, first queued first.
func (s *Store) Queued(ctx context.Context, key string) ([]Queued, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT seq, message FROM queue WHERE key = ? ORDER BY seq`, key)
	if err != nil {
		return nil, fmt.Errorf("gateway store: queue of %s: %w", key, err)
	}
	defer rows.Close()
	var out []Queued
	for rows.Next() {
		var q Queued
		var raw string
		if err := rows.Scan(&q.Seq, &raw); err != nil {
			return nil, fmt.Errorf("gateway store: queue of %s: %w", key, err)
		}
		var st storedInbound
		if err := json.Unmarshal([]byte(raw), &st); err != nil {
			return nil, fmt.Errorf("gateway store: queue of %s: message %d: %w", key, q.Seq, err)
		}
		q.Message = st.inbound()
		out = append(out, q)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("gateway store: queue of %s: %w", key, err)
	}
	return out, nil
}

// Dequeue removes a queued message once its turn has started. Removing
// one that is already gone is not an error.
func (s *Store) Dequeue(ctx context.Context, seq int64) error {
	if _, err := s.w.ExecContext(ctx, `DELETE FROM queue WHERE seq = ?`, seq); err != nil {
		return fmt.Errorf("gateway store: dequeue message %d: %w", seq, err)
	}
	return nil
}

// QueuedKeys returns the session keys that have queued messages, the key
// of the oldest queued message first: after a restart, the chats whose
// queues must be resumed.
func (s *Store) QueuedKeys(ctx context.Context) ([]string, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT key FROM queue GROUP BY key ORDER BY min(seq)`)
	if err != nil {
		return nil, fmt.Errorf("gateway store: queued chats: %w", err)
	}
	defer rows.Close()
	var keys []string
	for rows.Next() {
		var k string
		if err := rows.Scan(&k); err != nil {
			return nil, fmt.Errorf("gateway store: queued chats: %w", err)
		}
		keys = append(keys, k)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("gateway store: queued chats: %w", err)
	}
	return keys, nil
}
