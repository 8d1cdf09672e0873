package openai

import (
	"bytes"
	"crypto/sha1"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"
	"sync"

	"github.com/hermes-go/hermes/llm"
)

// responsesBody is the Responses API request body, encoded here for the
// same reason as chatBody; TestResponsesEncodingMatchesTheSDK keeps it
// equal to what the SDK's param types would send.
type responsesBody struct {
	Model           string            `json:"model"`
	Instructions    string            `json:"instructions,omitempty"`
	Input           []any             `json:"-"` // written by encodeResponses
	Tools           []json.RawMessage `json:"tools,omitempty"`
	Store           bool              `json:"store"`
	Include         []string          `json:"include,omitempty"`
	Reasoning       *responsesEffort  `json:"reasoning,omitempty"`
	MaxOutputTokens int               `json:"max_output_tokens,omitempty"`
	Temperature     *float64          `json:"temperature,omitempty"`
	PromptCacheKey  string            `json:"prompt_cache_key,omitempty"`
	Stream          bool              `json:"stream,omitempty"`
}

type responsesEffort struct {
	Effort  string `json:"effort"`
	Summary string `json:"summary,omitempty"`
}

// inputPart is an input_text or input_image part of a user item.
type inputPart struct {
	Type     string  `json:"type"`
	Text     *string `json:"text,omitempty"`
	ImageURL string  `json:"image_url,omitempty"`
	Detail   string  `json:"detail,omitempty"`
}

type userItem struct {
	Role    string      `json:"role"`
	Content []inputPart `json:"content"`
}

// userContent is a user message's text, then its images (inline ones as
// data: URLs). A message of images only sends no empty text part.
func userContent(text string, images []llm.Image) []inputPart {
	parts := make([]inputPart, 0, len(images)+1)
	if text != "" || len(images) == 0 {
		parts = append(parts, inputPart{Type: "input_text", Text: &text})
	}
	for _, im := range images {
		detail := im.Detail
		if detail == "" {
			detail = "auto"
		}
		parts = append(parts, inputPart{Type: "input_image", ImageURL: im.DataURL(), Detail: detail})
	}
	return parts
}

type outputText struct {
	Type        string   `json:"type"`
	Text        string   `json:"text"`
	Annotations []string `json:"annotations"`
}

type outputMessageItem struct {
	Type    string       `json:"type"`
	Role    string       `json:"role"`
	Status  string       `json:"status"`
	Content []outputText `json:"content"`
}

type functionCallItem struct {
	Type      string `json:"type"`
	ID        string `json:"id"`
	CallID    string `json:"call_id"`
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

type functionOutputItem struct {
	Type   string `json:"type"`
	CallID string `json:"call_id"`
	Output string `json:"output"`
}

// encodeResponses converts a canonical request to a Responses API body.
// The conversation is stateless: the whole history is sent every call with
// store=false, and encrypted reasoning is replayed.
func (r *Responses) encodeResponses(req *llm.Request, stream bool) ([]byte, error) {
	if err := llm.CheckImages(req.Messages); err != nil {
		return nil, fmt.Errorf("openai: %w", err)
	}
	b := responsesBody{Model: req.Model, Input: make([]any, 0, len(req.Messages)+4), Stream: stream}
	var instructions []string
	for i := range req.Messages {
		m := &req.Messages[i]
		content := strings.TrimSpace(m.Content)
		switch m.Role {
		case llm.RoleSystem:
			if content != "" {
				instructions = append(instructions, content)
			}
		case llm.RoleUser:
			b.Input = append(b.Input, userItem{Role: "user", Content: userContent(content, m.Images)})
		case llm.RoleAssistant:
			b.Input = r.appendAssistantItems(b.Input, m, content)
		case llm.RoleTool:
			b.Input = append(b.Input, functionOutputItem{Type: "function_call_output", CallID: m.ToolCallID, Output: content})
		}
	}
	b.Instructions = strings.Join(instructions, "\n\n")
	for _, t := range req.Tools {
		raw, err := responsesToolJSON(t)
		if err != nil {
			return nil, err
		}
		b.Tools = append(b.Tools, raw)
	}
	b.MaxOutputTokens = req.MaxTokens
	// Reasoning models reject any temperature but the default.
	if req.Temperature != nil && !isReasoningModel(req.Model) {
		b.Temperature = req.Temperature
	}
	b.PromptCacheKey = req.SessionID
	effort := req.ReasoningEffort
	if effort != "" {
		b.Reasoning = &responsesEffort{Effort: effort}
		if effort != "none" {
			b.Reasoning.Summary = "auto"
		}
	}
	// Only reasoning models accept the include; others reject the request.
	if effort != "none" && (effort != "" || isReasoningModel(req.Model)) {
		b.Include = []string{"reasoning.encrypted_content"}
	}
	head, err := encodeJSON(b)
	if err != nil {
		return nil, err
	}
	return appendInput(head, b.Input)
}

// appendInput adds the input array to an encoded body. Stored reasoning
// items go in as they are: each holds kilobytes of encrypted content that
// encoding/json would re-validate and compact on every call, and
// replayable already proved them valid JSON.
func appendInput(head []byte, items []any) ([]byte, error) {
	size := len(head) + 16
	for _, it := range items {
		if raw, ok := it.(json.RawMessage); ok {
			size += len(raw) + 1
		} else {
			size += 512
		}
	}
	var buf bytes.Buffer
	buf.Grow(size)
	buf.Write(head[:len(head)-1]) // reopen the object
	buf.WriteString(`,"input":[`)
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	for i, it := range items {
		if i > 0 {
			buf.WriteByte(',')
		}
		if raw, ok := it.(json.RawMessage); ok {
			buf.Write(raw)
			continue
		}
		if err := enc.Encode(it); err != nil {
			return nil, fmt.Errorf("openai: encode request: %w", err)
		}
		buf.Truncate(buf.Len() - 1) // Encode's newline
	}
	buf.WriteString("]}")
	return buf.Bytes(), nil
}

// appendAssistantItems adds one assistant turn: its encrypted reasoning
// items first (they preceded the output), then its text, then each call.
func (r *Responses) appendAssistantItems(items []any, m *llm.Message, content string) []any {
	for _, raw := range m.ReasoningItems {
		// Without encrypted content the item only names server-side state,
		// which does not exist when store is false.
		if r.items.replayable(raw) {
			items = append(items, raw)
		}
	}
	if content != "" {
		items = append(items, outputMessageItem{Type: "message", Role: "assistant", Status: "completed",
			Content: []outputText{{Type: "output_text", Text: content, Annotations: []string{}}}})
	}
	for _, tc := range m.ToolCalls {
		items = append(items, functionCallItem{Type: "function_call", ID: functionItemID(tc.ID),
			CallID: tc.ID, Name: tc.Name, Arguments: r.args.canonical(tc.Arguments)})
	}
	return items
}

// functionItemID derives a function_call item id from a call id: chat
// "call_X" pairs with Responses "fc_X"; any other id is hashed, since the
// API only accepts item ids that start with "fc_".
func functionItemID(callID string) string {
	switch {
	case strings.HasPrefix(callID, "fc_"):
		return callID
	case strings.HasPrefix(callID, "call_") && len(callID) > len("call_"):
		return "fc_" + callID[len("call_"):]
	}
	sum := sha1.Sum([]byte(callID))
	return "fc_" + hex.EncodeToString(sum[:])[:24]
}

// hasEncryptedContent reports whether raw is a Responses reasoning item
// that carries its encrypted content.
func hasEncryptedContent(raw json.RawMessage) bool {
	var it struct {
		Type             string `json:"type"`
		EncryptedContent string `json:"encrypted_content"`
	}
	return json.Unmarshal(raw, &it) == nil && it.Type == "reasoning" && it.EncryptedContent != ""
}

// itemMemo remembers which stored reasoning items can be replayed. The
// same items are resent every turn and each holds kilobytes of encrypted
// content, so deciding costs a decode the first time and a map lookup
// after. Bounded by total bytes; it starts over when full.
type itemMemo struct {
	mu    sync.Mutex
	m     map[string]bool
	bytes int
}

func (im *itemMemo) replayable(raw json.RawMessage) bool {
	im.mu.Lock()
	v, ok := im.m[string(raw)]
	im.mu.Unlock()
	if ok {
		return v
	}
	v = hasEncryptedContent(raw)
	if len(raw) > argsMemoMaxEntry {
		return v
	}
	im.mu.Lock()
	if im.m == nil || im.bytes+len(raw) > argsMemoMaxBytes {
		im.m, im.bytes = make(map[string]bool), 0
	}
	im.m[string(raw)] = v
	im.bytes += len(raw)
	im.mu.Unlock()
	return v
}

// responsesToolJSON is the Responses function-tool object. strict is sent
// false explicitly: the Responses API defaults it to true, which rejects
// ordinary (non-strict) schemas.
func responsesToolJSON(t llm.ToolDef) (json.RawMessage, error) {
	f := toolFunction(t)
	f.Type = "function"
	strict := false
	f.Strict = &strict
	b, err := json.Marshal(f)
	if err != nil {
		return nil, fmt.Errorf("tool %q: invalid parameters schema: %w", t.Name, err)
	}
	return b, nil
}
