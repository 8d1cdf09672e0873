package llmtest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/hermes-go/hermes/llm"
)

type anthropicRequest struct {
	Model     string             `json:"model"`
	MaxTokens *int               `json:"max_tokens"`
	System    json.RawMessage    `json:"system"`
	Messages  *[]anthropicMsg    `json:"messages"`
	Tools     []anthropicToolDef `json:"tools"`
}

type anthropicToolDef struct {
	Type        string          `json:"type"`
	Name        string          `json:"name"`
	Description string          `json:"description"`
	InputSchema json.RawMessage `json:"input_schema"`
}

type anthropicMsg struct {
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
}

type anthropicBlock struct {
	Type      string          `json:"type"`
	Text      string          `json:"text"`
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Input     json.RawMessage `json:"input"`
	ToolUseID string          `json:"tool_use_id"`
	Content   json.RawMessage `json:"content"`
	Thinking  string          `json:"thinking"`
	Signature *string         `json:"signature"`
}

// anthropicBlockTypes are the content block types a request may carry.
var anthropicBlockTypes = map[string]bool{
	"text": true, "image": true, "document": true, "search_result": true,
	"tool_use": true, "tool_result": true, "thinking": true, "redacted_thinking": true,
	"server_tool_use": true, "web_search_tool_result": true, "web_fetch_tool_result": true,
	"container_upload": true, "mcp_tool_use": true, "mcp_tool_result": true,
}

// parseAnthropic converts a Messages request and applies the API's checks:
// the anthropic-version header, required fields, non-empty content, signed
// thinking, and each tool_use answered by a tool_result in the very next
// message.
func parseAnthropic(body []byte, req *Request) error {
	if req.Header.Get("Anthropic-Version") == "" {
		return invalid("", "anthropic-version: header is required")
	}
	var ar anthropicRequest
	if err := json.Unmarshal(body, &ar); err != nil {
		return invalid("", "There was an issue with the JSON body of your request: %v", err)
	}
	switch {
	case ar.Model == "":
		return invalid("", "model: Field required")
	case ar.MaxTokens == nil:
		return invalid("", "max_tokens: Field required")
	case ar.Messages == nil:
		return invalid("", "messages: Field required")
	}
	for _, t := range ar.Tools {
		if t.Type == "" || t.Type == "custom" {
			req.tools = append(req.tools, llm.ToolDef{Name: t.Name, Description: t.Description, Parameters: t.InputSchema})
		}
	}
	if len(ar.System) > 0 && string(ar.System) != "null" {
		blocks, err := anthropicBlocks(ar.System, "system")
		if err != nil {
			return err
		}
		var texts []string
		for _, b := range blocks {
			texts = append(texts, b.Text)
		}
		req.messages = append(req.messages, llm.System(joinText(texts)))
	}

	msgs := *ar.Messages
	names := map[string]string{}
	var pending []string // tool_use ids of the previous assistant message
	pendingAt := -1
	for i, m := range msgs {
		param := fmt.Sprintf("messages.%d", i)
		blocks, err := anthropicBlocks(m.Content, param+".content")
		if err != nil {
			return err
		}
		last := i == len(msgs)-1
		if len(blocks) == 0 && !(last && m.Role == "assistant") {
			return invalid(param, "messages.%d: all messages must have non-empty content except for the optional final assistant message", i)
		}
		for j, b := range blocks {
			if !anthropicBlockTypes[b.Type] {
				return invalid(param, "messages.%d.content.%d.type: Input tag '%s' found using 'type' does not match any of the expected tags", i, j, b.Type)
			}
			if b.Type == "text" && b.Text == "" {
				return invalid(param, "messages: text content blocks must be non-empty")
			}
			if b.Type == "thinking" && b.Signature == nil {
				return invalid(param, "messages.%d.content.%d.thinking.signature: Field required", i, j)
			}
		}

		// Results must answer exactly the previous assistant's tool_use ids.
		results := map[string]bool{}
		for j, b := range blocks {
			if b.Type != "tool_result" {
				continue
			}
			if m.Role != "user" || !slices.Contains(pending, b.ToolUseID) {
				return invalid(param, "messages.%d.content.%d: unexpected `tool_use_id` found in `tool_result` blocks: %s. Each `tool_result` block must have a corresponding `tool_use` block in the previous message.", i, j, b.ToolUseID)
			}
			results[b.ToolUseID] = true
		}
		if err := unansweredToolUse(pending, results, pendingAt); err != nil {
			return err
		}
		pending, pendingAt = nil, i

		switch m.Role {
		case "user":
			var texts []string
			var images []llm.Image
			raws, _ := rawBlocks(m.Content)
			for j, b := range blocks {
				switch b.Type {
				case "image":
					if j >= len(raws) {
						return invalid(param, "%s.content.%d.image.source: Field required", param, j)
					}
					im, err := anthropicImage(raws[j], fmt.Sprintf("%s.content.%d", param, j))
					if err != nil {
						return err
					}
					images = append(images, im)
				case "tool_result":
					out, err := anthropicResultText(b.Content, param)
					if err != nil {
						return err
					}
					req.messages = append(req.messages, llm.ToolResult(b.ToolUseID, names[b.ToolUseID], out))
				case "text":
					texts = append(texts, b.Text)
				}
			}
			if len(texts) > 0 || len(images) > 0 {
				req.messages = append(req.messages, llm.UserWithImages(joinText(texts), images...))
			}
		case "assistant":
			msg := llm.Message{Role: llm.RoleAssistant}
			var texts, thinking []string
			raws, _ := rawBlocks(m.Content)
			for j, b := range blocks {
				switch b.Type {
				case "text":
					texts = append(texts, b.Text)
				case "thinking", "redacted_thinking":
					if b.Thinking != "" {
						thinking = append(thinking, b.Thinking)
					}
					if j < len(raws) {
						msg.ReasoningDetails = append(msg.ReasoningDetails, raws[j])
					}
				case "tool_use":
					args, err := compactJSON(b.Input)
					if err != nil {
						return invalid(param, "messages.%d.content.%d.tool_use.input: Input should be a valid dictionary", i, j)
					}
					msg.ToolCalls = append(msg.ToolCalls, llm.ToolCall{ID: b.ID, Name: b.Name, Arguments: args})
					names[b.ID] = b.Name
					pending = append(pending, b.ID)
				}
			}
			msg.Content = joinText(texts)
			msg.Reasoning = strings.Join(thinking, "\n\n")
			req.messages = append(req.messages, msg)
		default:
			return invalid(param, "messages.%d.role: Input should be 'user' or 'assistant'", i)
		}
	}
	return unansweredToolUse(pending, nil, pendingAt)
}

func unansweredToolUse(pending []string, results map[string]bool, at int) error {
	var missing []string
	for _, id := range pending {
		if !results[id] {
			missing = append(missing, id)
		}
	}
	if len(missing) == 0 {
		return nil
	}
	return invalid(fmt.Sprintf("messages.%d", at),
		"messages.%d: `tool_use` ids were found without `tool_result` blocks immediately after: %s. Each `tool_use` block must have a corresponding `tool_result` block in the next message.",
		at, strings.Join(missing, ", "))
}

// anthropicBlocks reads content given as a string (one text block) or a
// list of blocks.
func anthropicBlocks(raw json.RawMessage, param string) ([]anthropicBlock, error) {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		if s == "" {
			return nil, nil
		}
		return []anthropicBlock{{Type: "text", Text: s}}, nil
	}
	var blocks []anthropicBlock
	if err := json.Unmarshal(raw, &blocks); err != nil {
		return nil, invalid(param, "%s: Input should be a valid list", param)
	}
	return blocks, nil
}

func rawBlocks(raw json.RawMessage) ([]json.RawMessage, error) {
	var out []json.RawMessage
	err := json.Unmarshal(raw, &out)
	return out, err
}

// anthropicResultText reads a tool_result's content: a string or text blocks.
func anthropicResultText(raw json.RawMessage, param string) (string, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return "", nil
	}
	blocks, err := anthropicBlocks(raw, param)
	if err != nil {
		return "", err
	}
	var texts []string
	for _, b := range blocks {
		if b.Type == "text" {
			texts = append(texts, b.Text)
		}
	}
	return joinText(texts), nil
}

func compactJSON(raw json.RawMessage) (string, error) {
	if len(raw) == 0 {
		return "{}", nil
	}
	var obj map[string]any
	if err := json.Unmarshal(raw, &obj); err != nil {
		return "", err
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, raw); err != nil {
		return "", err
	}
	return buf.String(), nil
}
