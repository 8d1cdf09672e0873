package openai

import (
	"strings"

	"github.com/openai/openai-go/v3/packages/param"
	"github.com/openai/openai-go/v3/responses"
	"github.com/openai/openai-go/v3/shared"

	"github.com/hermes-go/hermes/llm"
)

// sdkResponsesParams builds the request with the SDK's param types: the
// reference the hand-written encoder is checked against.
func (r *Responses) sdkResponsesParams(req *llm.Request) (responses.ResponseNewParams, error) {
	p := responses.ResponseNewParams{
		Model: shared.ResponsesModel(req.Model),
		Store: param.NewOpt(false),
	}
	var instructions []string
	items := make(responses.ResponseInputParam, 0, len(req.Messages)+4)
	for i := range req.Messages {
		m := &req.Messages[i]
		content := strings.TrimSpace(m.Content)
		switch m.Role {
		case llm.RoleSystem:
			if content != "" {
				instructions = append(instructions, content)
			}
		case llm.RoleUser:
			var list responses.ResponseInputMessageContentListParam
			if content != "" || len(m.Images) == 0 {
				list = append(list, responses.ResponseInputContentUnionParam{OfInputText: &responses.ResponseInputTextParam{Text: content}})
			}
			for _, im := range m.Images {
				list = append(list, responses.ResponseInputContentUnionParam{OfInputImage: &responses.ResponseInputImageParam{
					Detail: responses.ResponseInputImageDetailAuto, ImageURL: param.NewOpt(im.DataURL())}})
			}
			items = append(items, responses.ResponseInputItemUnionParam{OfMessage: &responses.EasyInputMessageParam{
				Role:    responses.EasyInputMessageRoleUser,
				Content: responses.EasyInputMessageContentUnionParam{OfInputItemContentList: list},
			}})
		case llm.RoleAssistant:
			items = sdkAssistantItems(items, m, content)
		case llm.RoleTool:
			items = append(items, responses.ResponseInputItemUnionParam{OfFunctionCallOutput: &responses.ResponseInputItemFunctionCallOutputParam{
				CallID: param.NewOpt(m.ToolCallID),
				Output: responses.ResponseInputItemFunctionCallOutputOutputUnionParam{OfString: param.NewOpt(content)},
			}})
		}
	}
	p.Input = responses.ResponseNewParamsInputUnion{OfInputItemList: items}
	if len(instructions) > 0 {
		p.Instructions = param.NewOpt(strings.Join(instructions, "\n\n"))
	}
	if len(req.Tools) > 0 {
		p.Tools = make([]responses.ToolUnionParam, len(req.Tools))
		for i, t := range req.Tools {
			raw, err := responsesToolJSON(t)
			if err != nil {
				return p, err
			}
			fn := param.Override[responses.FunctionToolParam](raw)
			p.Tools[i] = responses.ToolUnionParam{OfFunction: &fn}
		}
	}
	if req.MaxTokens > 0 {
		p.MaxOutputTokens = param.NewOpt(int64(req.MaxTokens))
	}
	// Reasoning models reject any temperature but the default.
	if req.Temperature != nil && !isReasoningModel(req.Model) {
		p.Temperature = param.NewOpt(*req.Temperature)
	}
	if req.SessionID != "" {
		p.PromptCacheKey = param.NewOpt(req.SessionID)
	}
	effort := req.ReasoningEffort
	if effort != "" {
		p.Reasoning = shared.ReasoningParam{Effort: shared.ReasoningEffort(effort)}
		if effort != "none" {
			p.Reasoning.Summary = shared.ReasoningSummaryAuto
		}
	}
	// Only reasoning models accept the include; others reject the request.
	if effort != "none" && (effort != "" || isReasoningModel(req.Model)) {
		p.Include = []responses.ResponseIncludable{responses.ResponseIncludableReasoningEncryptedContent}
	}
	return p, nil
}

// appendAssistantItems adds one assistant turn: its encrypted reasoning
// items first (they preceded the output), then its text, then each call.
func sdkAssistantItems(items responses.ResponseInputParam, m *llm.Message, content string) responses.ResponseInputParam {
	for _, raw := range m.ReasoningItems {
		// Without encrypted content the item only names server-side state,
		// which does not exist when store is false.
		if !hasEncryptedContent(raw) {
			continue
		}
		it := param.Override[responses.ResponseReasoningItemParam](raw)
		items = append(items, responses.ResponseInputItemUnionParam{OfReasoning: &it})
	}
	if content != "" {
		items = append(items, responses.ResponseInputItemUnionParam{OfOutputMessage: &responses.ResponseOutputMessageParam{
			Status: responses.ResponseOutputMessageStatusCompleted,
			Content: []responses.ResponseOutputMessageContentUnionParam{{OfOutputText: &responses.ResponseOutputTextParam{
				Text:        content,
				Annotations: []responses.ResponseOutputTextAnnotationUnionParam{},
			}}},
		}})
	}
	for _, tc := range m.ToolCalls {
		items = append(items, responses.ResponseInputItemUnionParam{OfFunctionCall: &responses.ResponseFunctionToolCallParam{
			CallID:    tc.ID,
			Name:      tc.Name,
			Arguments: canonicalArgs(tc.Arguments),
			ID:        param.NewOpt(functionItemID(tc.ID)),
		}})
	}
	return items
}
