package session

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"

	"github.com/hermes-go/hermes/llm"
)

// ExportHeader is the first line of an export.
type ExportHeader struct {
	Type string `json:"type"` // "session"
	Session
	Todo json.RawMessage `json:"todo,omitempty"`
}

// ExportMessage is each following line.
type ExportMessage struct {
	Type string `json:"type"` // "message"
	llm.Message
}

// ExportJSONL writes the session as JSON Lines: one line with the session
// row (system prompt and task list included), then one line per message
// in order.
func (s *Store) ExportJSONL(ctx context.Context, id string, w io.Writer) error {
	x, err := s.Get(ctx, id)
	if err != nil {
		return err
	}
	todo, err := s.Todo(ctx, id)
	if err != nil {
		return err
	}
	msgs, err := s.Messages(ctx, id)
	if err != nil {
		return err
	}
	bw := bufio.NewWriter(w)
	enc := json.NewEncoder(bw)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(ExportHeader{Type: "session", Session: x, Todo: todo}); err != nil {
		return fmt.Errorf("session: export %s: %w", id, err)
	}
	for _, m := range msgs {
		if err := enc.Encode(ExportMessage{Type: "message", Message: m}); err != nil {
			return fmt.Errorf("session: export %s: %w", id, err)
		}
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("session: export %s: %w", id, err)
	}
	return nil
}
