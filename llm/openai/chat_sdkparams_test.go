package openai

import (
	"strings"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/packages/param"
	"github.com/openai/openai-go/v3/shared"

	"github.com/hermes-go/hermes/llm"
)

// sdkChatParams builds the request with the SDK's param types: the
// reference the hand-written encoder is checked against.
func (c *Chat) sdkChatParams(req *llm.Request, stream bool) (openai.ChatCompletionNewParams, error) {
	p := openai.ChatCompletionNewParams{
		Model:    shared.ChatModel(req.Model),
		Messages: make([]openai.ChatCompletionMessageParamUnion, 0, len(req.Messages)),
	}
	for i := range req.Messages {
		if m, ok := c.sdkChatMessage(&req.Messages[i], req.Model); ok {
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
	// OpenAI's reasoning models reject any temperature but the default.
	if req.Temperature != nil && !(c.f.official && isReasoningModel(req.Model)) {
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

func (c *Chat) sdkChatMessage(m *llm.Message, model string) (openai.ChatCompletionMessageParamUnion, bool) {
	content := strings.TrimSpace(m.Content)
	switch m.Role {
	case llm.RoleSystem:
		return openai.SystemMessage(content), true
	case llm.RoleUser:
		if len(m.Images) == 0 {
			return openai.UserMessage(content), true
		}
		var parts []openai.ChatCompletionContentPartUnionParam
		if content != "" {
			parts = append(parts, openai.TextContentPart(content))
		}
		for _, im := range m.Images {
			parts = append(parts, openai.ImageContentPart(openai.ChatCompletionContentPartImageImageURLParam{URL: im.DataURL()}))
		}
		return openai.UserMessage(parts), true
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
							Arguments: canonicalArgs(tc.Arguments),
						},
					},
				}
			}
		}
		if extra := c.sdkAssistantExtras(m, model); extra != nil {
			a.SetExtraFields(extra)
		}
		return openai.ChatCompletionMessageParamUnion{OfAssistant: a}, true
	}
	return openai.ChatCompletionMessageParamUnion{}, false
}

// sdkAssistantExtras is the production echo rule in SetExtraFields form.
func (c *Chat) sdkAssistantExtras(m *llm.Message, model string) map[string]any {
	var out chatMessage
	c.assistantExtras(&out, m, model)
	extra := map[string]any{}
	if out.ReasoningContent != nil {
		extra["reasoning_content"] = *out.ReasoningContent
	}
	if out.ReasoningDetails != nil {
		extra["reasoning_details"] = out.ReasoningDetails
	}
	if len(extra) == 0 {
		return nil
	}
	return extra
}
