package serve

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/hermes-go/hermes/llm"
	"github.com/hermes-go/hermes/session"
)

// Limits of the event queue.
const (
	queueLimit      = 1000 // events kept; older ones are dropped
	eventTextChars  = 500  // a message event's content
	scannedSessions = 200  // most recently active sessions read per scan
)

// Event is one entry of the queue events_poll and events_wait read.
type Event struct {
	Cursor    int64  `json:"cursor"`
	Type      string `json:"type"` // message, approval_requested, approval_resolved
	SessionID string `json:"session_id,omitempty"`
	Time      string `json:"timestamp,omitempty"`

	// message
	Role    string `json:"role,omitempty"`
	Content string `json:"content,omitempty"`
	Seq     int    `json:"seq,omitempty"`

	// approval_requested, approval_resolved
	ApprovalID  string `json:"approval_id,omitempty"`
	Command     string `json:"command,omitempty"`
	Description string `json:"description,omitempty"`
	Decision    string `json:"decision,omitempty"`
	ResolvedBy  string `json:"resolved_by,omitempty"`
}

// events is the queue. Message events come from the store, read when a
// client asks (scan): any process may have written them. Approval
// events are added as they happen.
type events struct {
	store *session.Store
	now   func() time.Time

	mu      sync.Mutex
	queue   []Event
	cursor  int64
	changed chan struct{} // closed when an event is added
	seen    map[string]int

	scanMu sync.Mutex // one scan at a time
}

func newEvents(store *session.Store, now func() time.Time) *events {
	return &events{store: store, now: now, changed: make(chan struct{}), seen: map[string]int{}}
}

// baseline records how many messages each session holds, so the
// messages stored before the server started are not events.
func (e *events) baseline(ctx context.Context) error {
	list, err := e.store.List(ctx, session.ListOptions{Limit: scannedSessions})
	if err != nil {
		return fmt.Errorf("mcp serve: reading the sessions: %w", err)
	}
	for _, s := range list {
		e.seen[s.ID] = s.MessageCount
	}
	return nil
}

// add appends an event and wakes the waiters.
func (e *events) add(ev Event) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.cursor++
	ev.Cursor = e.cursor
	if ev.Time == "" {
		ev.Time = e.now().UTC().Format(time.RFC3339Nano)
	}
	e.queue = append(e.queue, ev)
	if over := len(e.queue) - queueLimit; over > 0 {
		e.queue = append(e.queue[:0], e.queue[over:]...)
	}
	close(e.changed)
	e.changed = make(chan struct{})
}

// scan adds the user and assistant messages stored since the last scan
// in the most recently active sessions.
func (e *events) scan(ctx context.Context) error {
	e.scanMu.Lock()
	defer e.scanMu.Unlock()
	list, err := e.store.List(ctx, session.ListOptions{Limit: scannedSessions, ExcludeSources: []string{"subagent"}})
	if err != nil {
		return fmt.Errorf("reading the sessions: %w", err)
	}
	for i := len(list) - 1; i >= 0; i-- { // the least recently active first
		s := list[i]
		e.mu.Lock()
		seen := e.seen[s.ID]
		e.mu.Unlock()
		if s.MessageCount <= seen {
			if s.MessageCount < seen { // an undo dropped messages
				e.mu.Lock()
				e.seen[s.ID] = s.MessageCount
				e.mu.Unlock()
			}
			continue
		}
		msgs, err := e.store.MessageRange(ctx, s.ID, seen+1, s.MessageCount)
		if err != nil {
			return fmt.Errorf("reading the messages of %s: %w", s.ID, err)
		}
		for j, m := range msgs {
			if (m.Role != llm.RoleUser && m.Role != llm.RoleAssistant) || m.Content == "" {
				continue
			}
			ev := Event{Type: "message", SessionID: s.ID, Role: string(m.Role), Content: clip(m.Content, eventTextChars), Seq: seen + 1 + j}
			if !m.Time.IsZero() {
				ev.Time = m.Time.UTC().Format(time.RFC3339Nano)
			}
			e.add(ev)
		}
		e.mu.Lock()
		e.seen[s.ID] = seen + len(msgs)
		e.mu.Unlock()
	}
	return nil
}

// after returns up to limit events after cursor (of one session when
// sessionID is set), and a channel closed at the next event.
func (e *events) after(cursor int64, sessionID string, limit int) ([]Event, <-chan struct{}) {
	e.mu.Lock()
	defer e.mu.Unlock()
	out := []Event{}
	for _, ev := range e.queue {
		if ev.Cursor > cursor && (sessionID == "" || ev.SessionID == sessionID) {
			out = append(out, ev)
			if len(out) == limit {
				break
			}
		}
	}
	return out, e.changed
}

// clip cuts s to n characters, marking the cut.
func clip(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n]) + "…"
}
