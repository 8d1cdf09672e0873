package llmtest

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/hermes-go/hermes/llm"
)

// invalidRequest is a request a real provider would reject with 400. The
// messages are the providers' own, so code that classifies them sees what
// it would see in production.
type invalidRequest struct {
	param string
	msg   string
}

func (e *invalidRequest) Error() string { return e.msg }

func invalid(param, format string, args ...any) error {
	return &invalidRequest{param: param, msg: fmt.Sprintf(format, args...)}
}

type chatRequest struct {
	Model    string        `json:"model"`
	Messages *[]chatMsg    `json:"messages"`
	Tools    []chatToolDef `json:"tools"`
}

type chatToolDef struct {
	Type     string `json:"type"`
	Function struct {
		Name        string          `json:"name"`
		Description string          `json:"description"`
		Parameters  json.RawMessage `json:"parameters"`
	} `json:"function"`
}

type chatMsg struct {
	Role             string            `json:"role"`
	Content          json.RawMessage   `json:"content"`
	Name             string            `json:"name"`
	ToolCalls        []llm.ToolCall    `json:"tool_calls"`
	ToolCallID       string            `json:"tool_call_id"`
	ReasoningContent string            `json:"reasoning_content"`
	Reasoning        string            `json:"reasoning"`
	ReasoningDetails []json.RawMessage `json:"reasoning_details"`
}

// parseChat converts a Chat Completions request and applies the checks the
// OpenAI API makes on tool-call sequences.
func parseChat(body []byte, req *Request) error {
	var cr chatRequest
	if err := json.Unmarshal(body, &cr); err != nil {
		return invalid("", "We could not parse the JSON body of your request: %v", err)
	}
	if cr.Model == "" {
		return invalid("model", "you must provide a model parameter")
	}
	if cr.Messages == nil {
		return invalid("messages", "Missing required parameter: 'messages'.")
	}
	if len(*cr.Messages) == 0 {
		return invalid("messages", "[] is too short - 'messages'")
	}
	for _, t := range cr.Tools {
		if t.Type == "function" || t.Type == "" {
			req.tools = append(req.tools, llm.ToolDef{Name: t.Function.Name, Description: t.Function.Description, Parameters: t.Function.Parameters})
		}
	}

	var calls map[string]bool // ids of the open assistant tool_calls batch
	var open []string         // those ids, in order
	openAt := -1
	unanswered := func() error {
		var missing []string
		for _, id := range open {
			if calls[id] {
				missing = append(missing, id)
			}
		}
		if len(missing) > 0 {
			return invalid(fmt.Sprintf("messages.[%d].role", openAt+1),
				"An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: %s",
				strings.Join(missing, ", "))
		}
		return nil
	}
	names := map[string]string{}
	for i, m := range *cr.Messages {
		content, images, err := openAIContent(m.Content, llm.ChatCompletions, fmt.Sprintf("messages[%d].content", i))
		if err != nil {
			return err
		}
		if len(images) > 0 && m.Role != "user" {
			return invalid(fmt.Sprintf("messages[%d].content", i), "Image inputs are only supported in messages with role 'user'.")
		}
		msg := llm.Message{Content: content, Name: m.Name, Images: images}
		switch m.Role {
		case "system", "developer":
			msg.Role = llm.RoleSystem
		case "user":
			msg.Role = llm.RoleUser
		case "assistant":
			msg.Role = llm.RoleAssistant
			msg.ToolCalls = m.ToolCalls
			msg.Reasoning = m.ReasoningContent
			if msg.Reasoning == "" {
				msg.Reasoning = m.Reasoning
			}
			msg.ReasoningDetails = m.ReasoningDetails
		case "tool":
			msg.Role = llm.RoleTool
			msg.ToolCallID = m.ToolCallID
		case "function":
			// The deprecated function-calling shape: a result with no call id.
			req.messages = append(req.messages, llm.Message{Role: llm.RoleTool, Name: m.Name, Content: content})
			continue
		default:
			return invalid(fmt.Sprintf("messages.[%d].role", i),
				"Invalid value: '%s'. Supported values are: 'system', 'assistant', 'user', 'function', 'tool', and 'developer'.", m.Role)
		}

		if msg.Role == llm.RoleTool {
			if calls == nil {
				return invalid(fmt.Sprintf("messages.[%d].role", i),
					"Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.")
			}
			if _, ok := calls[m.ToolCallID]; !ok {
				return invalid(fmt.Sprintf("messages.[%d].tool_call_id", i),
					"Invalid parameter: 'tool_call_id' of '%s' not found in 'tool_calls' of previous message.", m.ToolCallID)
			}
			calls[m.ToolCallID] = false
			if msg.Name == "" {
				msg.Name = names[m.ToolCallID]
			}
		} else {
			if err := unanswered(); err != nil {
				return err
			}
			calls, open = nil, nil
			if len(msg.ToolCalls) > 0 {
				calls, openAt = map[string]bool{}, i
				for _, c := range msg.ToolCalls {
					calls[c.ID] = true
					open = append(open, c.ID)
					names[c.ID] = c.Name
				}
			}
		}
		req.messages = append(req.messages, msg)
	}
	return unanswered()
}

// contentText reads content that both OpenAI formats accept: a string,
// null, or a list of parts whose text (and refusal) parts are joined. ok
// is false when raw is none of these.
func contentText(raw json.RawMessage) (text string, ok bool) {
	if len(raw) == 0 || string(raw) == "null" {
		return "", true
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s, true
	}
	var parts []struct {
		Type    string `json:"type"`
		Text    string `json:"text"`
		Refusal string `json:"refusal"`
	}
	if json.Unmarshal(raw, &parts) != nil {
		return "", false
	}
	var texts []string
	for _, p := range parts {
		switch p.Type {
		case "text", "input_text", "output_text":
			texts = append(texts, p.Text)
		case "refusal":
			texts = append(texts, p.Refusal)
		}
	}
	return joinText(texts), true
}

func jsonKind(raw json.RawMessage) string {
	switch strings.TrimSpace(string(raw))[0] {
	case '{':
		return "an object"
	case '[':
		return "an array"
	case '"':
		return "a string"
	case 't', 'f':
		return "a boolean"
	}
	return "a number"
}
