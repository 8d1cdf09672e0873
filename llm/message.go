package llm

import (
	"encoding/json"
	"time"
)

// Role is the author of a message.
type Role string

// The four roles of the canonical format.
const (
	RoleSystem    Role = "system"
	RoleUser      Role = "user"
	RoleAssistant Role = "assistant"
	RoleTool      Role = "tool"
)

// Message is one entry of a conversation in the canonical (OpenAI-style)
// format. Assistant messages may carry tool calls and reasoning; tool
// messages answer exactly one call through ToolCallID.
//
// Content is the text. A user message may also carry image parts
// (Images), sent after the text; a message without images is plain
// text on every wire, as before.
type Message struct {
	Role    Role   `json:"role"`
	Content string `json:"content"`
	// Images are the message's image parts (user messages only: the
	// transports refuse them elsewhere).
	Images     []Image    `json:"images,omitempty"`
	ToolCalls  []ToolCall `json:"tool_calls,omitempty"`
	ToolCallID string     `json:"tool_call_id,omitempty"`
	// Name is the tool's name on tool messages.
	Name string `json:"name,omitempty"`

	// Reasoning is the model's visible thinking, plain text, kept for
	// display and storage. It is never sent back as content.
	Reasoning string `json:"reasoning,omitempty"`
	// ReasoningDetails holds provider-signed reasoning kept verbatim for
	// replay: OpenRouter's unified reasoning_details entries or Anthropic
	// thinking / redacted_thinking blocks with their signatures.
	ReasoningDetails []json.RawMessage `json:"reasoning_details,omitempty"`
	// ReasoningItems holds OpenAI Responses reasoning items (with
	// encrypted_content) replayed when the conversation is stateless.
	ReasoningItems []json.RawMessage `json:"reasoning_items,omitempty"`

	// FinishReason records why the model stopped (assistant messages only).
	FinishReason FinishReason `json:"finish_reason,omitempty"`
	// Time is when the message entered the history. Zero when unknown.
	Time time.Time `json:"timestamp,omitzero"`
}

// ToolCall is one function call requested by the model. Arguments is the
// JSON text exactly as the model produced it (it may be invalid JSON).
type ToolCall struct {
	ID        string `json:"id"`
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

// MarshalJSON writes the OpenAI shape {"id","type","function":{name,arguments}}.
func (c ToolCall) MarshalJSON() ([]byte, error) {
	type fn struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	}
	return json.Marshal(struct {
		ID       string `json:"id"`
		Type     string `json:"type"`
		Function fn     `json:"function"`
	}{c.ID, "function", fn{c.Name, c.Arguments}})
}

// UnmarshalJSON reads the OpenAI shape, and the flat {"id","name","arguments"} shape.
func (c *ToolCall) UnmarshalJSON(b []byte) error {
	var w struct {
		ID        string `json:"id"`
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
		Function  *struct {
			Name      string `json:"name"`
			Arguments string `json:"arguments"`
		} `json:"function"`
	}
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	c.ID, c.Name, c.Arguments = w.ID, w.Name, w.Arguments
	if w.Function != nil {
		c.Name, c.Arguments = w.Function.Name, w.Function.Arguments
	}
	return nil
}

// Clone returns a deep copy, so API copies never alias stored history.
func (m Message) Clone() Message {
	c := m
	if m.ToolCalls != nil {
		c.ToolCalls = append([]ToolCall(nil), m.ToolCalls...)
	}
	if m.Images != nil {
		c.Images = append([]Image(nil), m.Images...)
	}
	if m.ReasoningDetails != nil {
		c.ReasoningDetails = append([]json.RawMessage(nil), m.ReasoningDetails...)
	}
	if m.ReasoningItems != nil {
		c.ReasoningItems = append([]json.RawMessage(nil), m.ReasoningItems...)
	}
	return c
}

// CloneMessages deep-copies a history.
func CloneMessages(ms []Message) []Message {
	out := make([]Message, len(ms))
	for i, m := range ms {
		out[i] = m.Clone()
	}
	return out
}

// System, User, Assistant and ToolResult build the common messages.
func System(text string) Message    { return Message{Role: RoleSystem, Content: text} }
func User(text string) Message      { return Message{Role: RoleUser, Content: text} }
func Assistant(text string) Message { return Message{Role: RoleAssistant, Content: text} }
func ToolResult(callID, name, content string) Message {
	return Message{Role: RoleTool, ToolCallID: callID, Name: name, Content: content}
}

// UserWithImages is a user message with image parts.
func UserWithImages(text string, images ...Image) Message {
	return Message{Role: RoleUser, Content: text, Images: images}
}
