package openai

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/packages/param"
	"github.com/openai/openai-go/v3/shared"

	"github.com/hermes-go/hermes/llm"
)

// chatParams converts a canonical request to Chat Completions parameters.
// req is never modified.
func (c *Chat) chatParams(req *llm.Request, stream bool) (openai.ChatCompletionNewParams, error) {
	p := openai.ChatCompletionNewParams{
		Model:    shared.ChatModel(req.Model),
		Messages: make([]openai.ChatCompletionMessageParamUnion, 0, len(req.Messages)),
	}
	for i := range req.Messages {
		if m, ok := c.chatMessage(&req.Messages[i], req.Model); ok {
			p.Messages = append(p.Messages, m)
		}
	}
	if len(req.Tools) > 0 {
		p.Tools = make([]openai.ChatCompletionToolUnionParam, len(req.Tools))
		for i, t := range req.Tools {
			raw, err := chatToolJSON(t)
			if err != nil {
				return p, err
			}
			fn := param.Override[openai.ChatCompletionFunctionToolParam](raw)
			p.Tools[i] = openai.ChatCompletionToolUnionParam{OfFunction: &fn}
		}
	}
	if req.MaxTokens > 0 {
		// Reasoning models reject max_tokens; everything else (and most
		// OpenAI-compatible servers) only knows max_tokens.
		if isReasoningModel(req.Model) {
			p.MaxCompletionTokens = param.NewOpt(int64(req.MaxTokens))
		} else {
			p.MaxTokens = param.NewOpt(int64(req.MaxTokens))
		}
	}
	if req.Temperature != nil {
		p.Temperature = param.NewOpt(*req.Temperature)
	}
	if stream {
		p.StreamOptions.IncludeUsage = param.NewOpt(true)
	}
	if req.SessionID != "" && c.f.official && !c.f.azure {
		p.PromptCacheKey = param.NewOpt(req.SessionID)
	}
	if e := req.ReasoningEffort; e != "" {
		if c.f.gateway {
			// OpenRouter's unified reasoning object; effort "none" turns
			// reasoning off.
			p.SetExtraFields(map[string]any{"reasoning": map[string]any{"effort": e}})
		} else {
			p.ReasoningEffort = shared.ReasoningEffort(e)
		}
	}
	return p, nil
}

func (c *Chat) chatMessage(m *llm.Message, model string) (openai.ChatCompletionMessageParamUnion, bool) {
	content := strings.TrimSpace(m.Content)
	switch m.Role {
	case llm.RoleSystem:
		return openai.SystemMessage(content), true
	case llm.RoleUser:
		return openai.UserMessage(content), true
	case llm.RoleTool:
		return openai.ToolMessage(content, m.ToolCallID), true
	case llm.RoleAssistant:
		a := &openai.ChatCompletionAssistantMessageParam{}
		// Content may be omitted only when the turn has tool calls.
		if content != "" || len(m.ToolCalls) == 0 {
			a.Content.OfString = param.NewOpt(content)
		}
		if len(m.ToolCalls) > 0 {
			a.ToolCalls = make([]openai.ChatCompletionMessageToolCallUnionParam, len(m.ToolCalls))
			for i, tc := range m.ToolCalls {
				a.ToolCalls[i] = openai.ChatCompletionMessageToolCallUnionParam{
					OfFunction: &openai.ChatCompletionMessageFunctionToolCallParam{
						ID: tc.ID,
						Function: openai.ChatCompletionMessageFunctionToolCallFunctionParam{
							Name:      tc.Name,
							Arguments: c.args.canonical(tc.Arguments),
						},
					},
				}
			}
		}
		if extra := c.assistantExtras(m, model); extra != nil {
			a.SetExtraFields(extra)
		}
		return openai.ChatCompletionMessageParamUnion{OfAssistant: a}, true
	}
	return openai.ChatCompletionMessageParamUnion{}, false
}

// assistantExtras are the reasoning fields a provider wants echoed on an
// earlier assistant turn. Reasoning itself is never sent as content.
func (c *Chat) assistantExtras(m *llm.Message, model string) map[string]any {
	switch {
	case c.f.gateway:
		if len(m.ReasoningDetails) > 0 {
			return map[string]any{"reasoning_details": m.ReasoningDetails}
		}
	case c.f.echoReasoning:
		if m.Reasoning != "" {
			return map[string]any{"reasoning_content": m.Reasoning}
		}
		// Kimi with thinking on rejects a tool-call turn that lacks
		// reasoning_content, even an empty one.
		if len(m.ToolCalls) > 0 && strings.Contains(strings.ToLower(model), "kimi") {
			return map[string]any{"reasoning_content": ""}
		}
	}
	return nil
}

// functionJSON is a function definition with its schema passed through
// verbatim, so schemas are not decoded and re-encoded on every call.
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
