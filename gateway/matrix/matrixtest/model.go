package matrixtest

import (
	"encoding/json"
	"time"
)

// User is a Matrix account.
type User struct {
	ID   string // @alice:test
	Name string // display name
}

// Event is one event of a room's timeline, as the homeserver serves it.
type Event struct {
	ID       string         `json:"event_id"`
	Room     string         `json:"room_id"`
	Sender   string         `json:"sender"`
	Type     string         `json:"type"`
	StateKey *string        `json:"state_key,omitempty"`
	Content  map[string]any `json:"content"`
	TS       int64          `json:"origin_server_ts"`
}

// Message is one m.room.message as the room's members read it now: its
// current content (after edits), what it read after sending and after
// each edit, and the reactions on it that were not redacted.
type Message struct {
	ID            string
	Sender        string
	MsgType       string
	Body          string
	FormattedBody string
	Content       map[string]any // as sent (an edit's new content not applied)
	History       []string
	Reactions     []Reaction
	Redacted      bool
}

// Reaction is an m.reaction on a message.
type Reaction struct {
	ID     string
	Sender string
	Key    string
}

// Request is one request of the bot, as the fake answered it. Kind is
// "send" (a new message), "edit", "react", "redact", "sync", "join" or
// the first segment of the path otherwise.
type Request struct {
	At     time.Time
	Method string
	Path   string
	Room   string
	Kind   string
	Txn    string
	Status int
}

func (e Event) clone() Event {
	raw, _ := json.Marshal(e.Content)
	var c map[string]any
	json.Unmarshal(raw, &c)
	e.Content = c
	return e
}

// relation is an event's m.relates_to, if it has one.
func relation(content map[string]any) (relType, eventID, key string) {
	rel, _ := content["m.relates_to"].(map[string]any)
	if rel == nil {
		return "", "", ""
	}
	relType, _ = rel["rel_type"].(string)
	eventID, _ = rel["event_id"].(string)
	key, _ = rel["key"].(string)
	return
}

func str(m map[string]any, k string) string { s, _ := m[k].(string); return s }
