package openai

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/hermes-go/hermes/llm"
	"github.com/hermes-go/hermes/llm/modelinfo"
)

// chatBody is the Chat Completions request body. The body is encoded here
// rather than through the SDK's param types: the SDK's reflective encoder
// costs more than the rest of a call on a long history.
// TestChatEncodingMatchesTheSDK keeps the two equal.
type chatBody struct {
	Model               string         `json:"model"`
	Messages            []chatMessage  `json:"messages"`
	MaxTokens           int            `json:"max_tokens,omitempty"`
	MaxCompletionTokens int            `json:"max_completion_tokens,omitempty"`
	Temperature         *float64       `json:"temperature,omitempty"`
	ReasoningEffort     string         `json:"reasoning_effort,omitempty"`
	Reasoning           *effortObject  `json:"reasoning,omitempty"`
	PromptCacheKey      string         `json:"prompt_cache_key,omitempty"`
	Stream              bool           `json:"stream,omitempty"`
	StreamOptions       *streamOptions `json:"stream_options,omitempty"`
}

type effortObject struct {
	Effort string `json:"effort"`
}

type streamOptions struct {
	IncludeUsage bool `json:"include_usage"`
}

type chatMessage struct {
	Role string `json:"role"`
	// Content is a string, a []chatPart (text with images), or nil
	// (omitted: an assistant turn of tool calls only).
	Content          any               `json:"content,omitempty"`
	ToolCalls        []chatToolCall    `json:"tool_calls,omitempty"`
	ToolCallID       string            `json:"tool_call_id,omitempty"`
	ReasoningContent *string           `json:"reasoning_content,omitempty"`
	ReasoningDetails []json.RawMessage `json:"reasoning_details,omitempty"`
}

// chatPart is one part of a user message's content list.
type chatPart struct {
	Type     string        `json:"type"`
	Text     string        `json:"text,omitempty"`
	ImageURL *chatImageURL `json:"image_url,omitempty"`
}

type chatImageURL struct {
	URL    string `json:"url"`
	Detail string `json:"detail,omitempty"`
}

type chatToolCall struct {
	ID       string       `json:"id"`
	Type     string       `json:"type"`
	Function chatFunction `json:"function"`
}

type chatFunction struct {
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

// encodeChat converts a canonical request to a Chat Completions body.
// req is never modified.
func (c *Chat) encodeChat(req *llm.Request, stream bool) ([]byte, error) {
	if err := llm.CheckImages(req.Messages); err != nil {
		return nil, fmt.Errorf("openai: %w", err)
	}
	b := chatBody{Model: req.Model, Messages: make([]chatMessage, 0, len(req.Messages))}
	for i := range req.Messages {
		if m, ok := c.chatMessage(&req.Messages[i], req.Model); ok {
			b.Messages = append(b.Messages, m)
		}
	}
	tools, err := chatTools.encode(req.Tools)
	if err != nil {
		return nil, err
	}
	if req.MaxTokens > 0 {
		// Reasoning models reject max_tokens; everything else (and most
		// OpenAI-compatible servers) only knows max_tokens.
		if isReasoningModel(req.Model) {
			b.MaxCompletionTokens = req.MaxTokens
		} else {
			b.MaxTokens = req.MaxTokens
		}
	}
	// OpenAI's reasoning models reject any temperature but the default.
	if req.Temperature != nil && !(c.f.official && isReasoningModel(req.Model)) {
		b.Temperature = req.Temperature
	}
	if stream {
		b.Stream, b.StreamOptions = true, &streamOptions{IncludeUsage: true}
	}
	if req.SessionID != "" && c.f.official && !c.f.azure {
		b.PromptCacheKey = req.SessionID
	}
	if e := req.ReasoningEffort; e != "" {
		if c.f.gateway {
			// OpenRouter's unified reasoning object; effort "none" turns
			// reasoning off.
			b.Reasoning = &effortObject{Effort: e}
		} else {
			b.ReasoningEffort = e
		}
	}
	body, err := encodeJSON(b)
	if err != nil {
		return nil, err
	}
	return withTools(body, tools), nil
}

// withTools puts the encoded "tools" array at the end of body, an encoded
// object, in one allocation of the body's size. Splicing it in keeps
// encoding/json from scanning every schema again, which it does to any
// raw JSON it is handed.
func withTools(body []byte, tools encoded) []byte {
	if len(tools.parts) == 0 {
		return body
	}
	const key = `,"tools":`
	out := make([]byte, 0, len(body)+len(key)+tools.size)
	out = append(append(out, body[:len(body)-1]...), key...)
	out = append(out, '[')
	for i, p := range tools.parts {
		if i > 0 {
			out = append(out, ',')
		}
		out = append(out, p...)
	}
	return append(out, ']', '}')
}

func (c *Chat) chatMessage(m *llm.Message, model string) (chatMessage, bool) {
	content := strings.TrimSpace(m.Content)
	out := chatMessage{Role: string(m.Role), Content: content}
	switch m.Role {
	case llm.RoleSystem:
	case llm.RoleUser:
		if len(m.Images) > 0 {
			out.Content = chatParts(content, m.Images)
		}
	case llm.RoleTool:
		out.ToolCallID = m.ToolCallID
	case llm.RoleAssistant:
		// Content may be omitted only when the turn has tool calls.
		if content == "" && len(m.ToolCalls) > 0 {
			out.Content = nil
		}
		if len(m.ToolCalls) > 0 {
			out.ToolCalls = make([]chatToolCall, len(m.ToolCalls))
			for i, tc := range m.ToolCalls {
				out.ToolCalls[i] = chatToolCall{ID: tc.ID, Type: "function",
					Function: chatFunction{Name: tc.Name, Arguments: c.args.canonical(tc.Arguments)}}
			}
		}
		c.assistantExtras(&out, m, model)
	default:
		return out, false
	}
	return out, true
}

// chatParts is a user message's text followed by its images, inline
// ones as data: URLs.
func chatParts(text string, images []llm.Image) []chatPart {
	parts := make([]chatPart, 0, len(images)+1)
	if text != "" {
		parts = append(parts, chatPart{Type: "text", Text: text})
	}
	for _, im := range images {
		parts = append(parts, chatPart{Type: "image_url", ImageURL: &chatImageURL{URL: im.DataURL(), Detail: im.Detail}})
	}
	return parts
}

// assistantExtras adds the reasoning fields a provider wants echoed on an
// earlier assistant turn. Reasoning itself is never sent as content.
func (c *Chat) assistantExtras(out *chatMessage, m *llm.Message, model string) {
	switch {
	case c.f.gateway:
		if d := unifiedDetails(m.ReasoningDetails); len(d) > 0 {
			out.ReasoningDetails = d
		}
	case c.f.echoReasoning:
		if m.Reasoning != "" {
			r := m.Reasoning
			out.ReasoningContent = &r
		} else if len(m.ToolCalls) > 0 && modelinfo.Lookup(model).Has(modelinfo.EmptyReasoningOnToolCalls) {
			// Kimi with thinking on rejects a tool-call turn that lacks
			// reasoning_content, even an empty one.
			empty := ""
			out.ReasoningContent = &empty
		}
	}
}

// unifiedDetails keeps the entries in OpenRouter's unified format
// ("reasoning.text", "reasoning.summary", "reasoning.encrypted"). A history
// that came through the Anthropic transport holds native thinking blocks
// in the same field, which gateways would reject.
func unifiedDetails(details []json.RawMessage) []json.RawMessage {
	out := details[:0:0]
	for _, d := range details {
		var e struct {
			Type string `json:"type"`
		}
		if json.Unmarshal(d, &e) == nil && strings.HasPrefix(e.Type, "reasoning.") {
			out = append(out, d)
		}
	}
	return out
}

// functionJSON is a function definition with its schema passed through
// verbatim.
type functionJSON struct {
	Type        string          `json:"type,omitempty"`
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	Parameters  json.RawMessage `json:"parameters"`
	Strict      *bool           `json:"strict,omitempty"`
}

var emptySchema = json.RawMessage(`{"type":"object","properties":{}}`)

func toolFunction(t llm.ToolDef) functionJSON {
	params := t.Parameters
	if len(params) == 0 {
		params = emptySchema
	}
	return functionJSON{Name: t.Name, Description: t.Description, Parameters: params}
}

// chatToolJSON is the Chat Completions function-tool object.
func chatToolJSON(t llm.ToolDef) (json.RawMessage, error) {
	b, err := json.Marshal(struct {
		Type     string       `json:"type"`
		Function functionJSON `json:"function"`
	}{"function", toolFunction(t)})
	if err != nil {
		return nil, fmt.Errorf("tool %q: invalid parameters schema: %w", t.Name, err)
	}
	return b, nil
}

// encodeJSON encodes without HTML escaping: prompts and code are full of
// <, > and &, and escaping them only makes requests bigger.
func encodeJSON(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, fmt.Errorf("openai: encode request: %w", err)
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// ChatToolBytes is the size of t's definition as a Chat Completions
// request carries it.
func ChatToolBytes(t llm.ToolDef) (int, error) {
	b, err := chatToolJSON(t)
	return len(b), err
}
