package llmtest

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/hermes-go/hermes/llm"
)

type responsesRequest struct {
	Model        string            `json:"model"`
	Instructions json.RawMessage   `json:"instructions"`
	Input        json.RawMessage   `json:"input"`
	Tools        []json.RawMessage `json:"tools"`
	Include      []string          `json:"include"`
}

type responsesItem struct {
	Type      string          `json:"type"`
	Role      string          `json:"role"`
	Content   json.RawMessage `json:"content"`
	CallID    string          `json:"call_id"`
	Name      string          `json:"name"`
	Arguments string          `json:"arguments"`
	Output    json.RawMessage `json:"output"`
	Summary   []struct {
		Text string `json:"text"`
	} `json:"summary"`
}

// parseResponses converts a Responses request: instructions become the
// system message, consecutive assistant-side items (reasoning, message,
// function_call) one assistant message, each function_call_output a tool
// message. It applies the API's check that outputs answer known calls.
func parseResponses(body []byte, req *Request) error {
	var rr responsesRequest
	if err := json.Unmarshal(body, &rr); err != nil {
		return invalid("", "We could not parse the JSON body of your request: %v", err)
	}
	if rr.Model == "" {
		return invalid("model", "Missing required parameter: 'model'.")
	}
	for _, raw := range rr.Tools {
		var t struct {
			Type        string          `json:"type"`
			Name        string          `json:"name"`
			Description string          `json:"description"`
			Parameters  json.RawMessage `json:"parameters"`
		}
		if json.Unmarshal(raw, &t) == nil && t.Type == "function" {
			req.tools = append(req.tools, llm.ToolDef{Name: t.Name, Description: t.Description, Parameters: t.Parameters})
		}
	}
	if len(rr.Instructions) > 0 && string(rr.Instructions) != "null" {
		text, err := responsesContent(rr.Instructions, "instructions")
		if err != nil {
			return err
		}
		req.messages = append(req.messages, llm.System(text))
	}
	if len(rr.Input) == 0 || string(rr.Input) == "null" {
		return invalid("input", "Missing required parameter: 'input'.")
	}
	var s string
	if json.Unmarshal(rr.Input, &s) == nil {
		req.messages = append(req.messages, llm.User(s))
		return nil
	}
	var items []json.RawMessage
	if err := json.Unmarshal(rr.Input, &items); err != nil {
		return invalid("input", "Invalid type for 'input': expected one of a string or array of input items, but got %s instead.", jsonKind(rr.Input))
	}

	names := map[string]string{}  // call_id -> tool name
	answered := map[string]bool{} // call_id -> has an output
	var order []string
	// assistant returns the assistant message under construction, starting
	// one unless the previous message is an assistant.
	assistant := func() *llm.Message {
		if n := len(req.messages); n > 0 && req.messages[n-1].Role == llm.RoleAssistant {
			return &req.messages[n-1]
		}
		req.messages = append(req.messages, llm.Message{Role: llm.RoleAssistant})
		return &req.messages[len(req.messages)-1]
	}
	for i, raw := range items {
		var it responsesItem
		if err := json.Unmarshal(raw, &it); err != nil {
			return invalid(fmt.Sprintf("input[%d]", i), "Invalid type for 'input[%d]': expected an object, but got %s instead.", i, jsonKind(raw))
		}
		if it.Type == "" && it.Role != "" {
			it.Type = "message"
		}
		switch it.Type {
		case "message":
			text, images, err := openAIContent(it.Content, llm.CodexResponses, fmt.Sprintf("input[%d].content", i))
			if err != nil {
				return err
			}
			if len(images) > 0 && it.Role != "user" {
				return invalid(fmt.Sprintf("input[%d].content", i), "Image inputs are only supported in messages with role 'user'.")
			}
			switch it.Role {
			case "system", "developer":
				req.messages = append(req.messages, llm.System(text))
			case "user":
				req.messages = append(req.messages, llm.UserWithImages(text, images...))
			case "assistant":
				m := assistant()
				m.Content = joinNonEmpty(m.Content, text)
			default:
				return invalid(fmt.Sprintf("input[%d].role", i),
					"Invalid value: '%s'. Supported values are: 'assistant', 'system', 'developer', and 'user'.", it.Role)
			}
		case "reasoning":
			m := assistant()
			var summary []string
			for _, p := range it.Summary {
				summary = append(summary, p.Text)
			}
			if text := strings.Join(summary, "\n\n"); text != "" {
				m.Reasoning = joinNonEmpty(m.Reasoning, text)
			}
			m.ReasoningItems = append(m.ReasoningItems, append(json.RawMessage(nil), raw...))
		case "function_call":
			m := assistant()
			m.ToolCalls = append(m.ToolCalls, llm.ToolCall{ID: it.CallID, Name: it.Name, Arguments: it.Arguments})
			names[it.CallID] = it.Name
			answered[it.CallID] = false
			order = append(order, it.CallID)
		case "function_call_output":
			if _, ok := answered[it.CallID]; !ok {
				return invalid(fmt.Sprintf("input[%d]", i), "No tool call found for function call output with call_id %s.", it.CallID)
			}
			answered[it.CallID] = true
			out, err := responsesContent(it.Output, fmt.Sprintf("input[%d].output", i))
			if err != nil {
				return err
			}
			req.messages = append(req.messages, llm.ToolResult(it.CallID, names[it.CallID], out))
		case "item_reference":
			// A reference to stored state; nothing to convert.
		default:
			return invalid(fmt.Sprintf("input[%d]", i), "Invalid value: '%s'. Supported values are: 'message', 'reasoning', 'function_call', 'function_call_output', and 'item_reference'.", it.Type)
		}
	}
	for _, id := range order {
		if !answered[id] {
			return invalid("input", "No tool output found for function call %s.", id)
		}
	}
	return nil
}

// responsesContent reads a string, or the text of a list of content parts.
func responsesContent(raw json.RawMessage, param string) (string, error) {
	s, ok := contentText(raw)
	if !ok {
		return "", invalid(param, "Invalid type for '%s': expected one of a string or array of content parts, but got %s instead.", param, jsonKind(raw))
	}
	return s, nil
}

func joinNonEmpty(a, b string) string {
	switch {
	case a == "":
		return b
	case b == "":
		return a
	}
	return a + "\n" + b
}
