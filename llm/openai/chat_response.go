package openai

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"strings"

	"github.com/hermes-go/hermes/llm"
)

// assembly is a Chat Completions answer gathered from a stream or a whole
// response, before it becomes an llm.Response.
type assembly struct {
	id, model string
	content   string // raw, inline reasoning tags included
	refusal   string
	finish    string
	reasoning reasoningParts
	details   []json.RawMessage
	calls     []llm.ToolCall
	usage     wireUsage
	hasUsage  bool
}

func (a *assembly) response() *llm.Response {
	visible, inline := llm.SplitThink(a.content)
	a.reasoning.add(inline)
	for i := range a.calls {
		if a.calls[i].ID == "" {
			// Results are matched to calls by id; a server that omits ids
			// (some local ones) still needs one.
			a.calls[i].ID = newCallID()
		}
	}
	finish := chatFinish(a.finish, len(a.calls) > 0)
	refusal := strings.TrimSpace(a.refusal)
	if refusal != "" {
		finish = llm.FinishContentFilter
	}
	r := &llm.Response{
		Message: llm.Message{
			Role:             llm.RoleAssistant,
			Content:          visible,
			ToolCalls:        a.calls,
			Reasoning:        a.reasoning.String(),
			ReasoningDetails: a.details,
			FinishReason:     finish,
		},
		FinishReason: finish,
		Model:        a.model,
		ID:           a.id,
		Refusal:      refusal,
	}
	if a.hasUsage {
		r.Usage = chatUsage(a.usage)
	}
	return r
}

// chatFinish normalises a Chat Completions finish_reason. Some servers
// report "stop" even when the turn ends in tool calls.
func chatFinish(reason string, hasCalls bool) llm.FinishReason {
	switch reason {
	case "length", "max_tokens", "model_length":
		return llm.FinishLength
	case "content_filter", "refusal", "safety":
		return llm.FinishContentFilter
	}
	if hasCalls {
		return llm.FinishToolCalls
	}
	return llm.FinishStop
}

func chatUsage(u wireUsage) llm.Usage {
	out := llm.Usage{
		InputTokens:      u.PromptTokens,
		OutputTokens:     u.CompletionTokens,
		CacheReadTokens:  u.PromptTokensDetails.CachedTokens,
		CacheWriteTokens: u.PromptTokensDetails.CacheWriteTokens,
		ReasoningTokens:  u.CompletionTokensDetails.ReasoningTokens,
		TotalTokens:      u.TotalTokens,
	}
	if out.TotalTokens == 0 {
		out.TotalTokens = out.InputTokens + out.OutputTokens
	}
	return out
}

// fromCompletion converts a non-streamed response, and replays it to the
// sink so callers see the same deltas whichever mode ran.
func fromCompletion(provider string, res *chatCompletion, sink func(llm.Delta)) (*llm.Response, error) {
	if res == nil || len(res.Choices) == 0 {
		return nil, invalidResponse(provider, "response has no choices")
	}
	ch := res.Choices[0]
	msg := ch.Message
	a := assembly{
		id: res.ID, model: res.Model,
		content: string(msg.Content), refusal: msg.Refusal, finish: ch.FinishReason,
		hasUsage: res.Usage != nil,
	}
	if res.Usage != nil {
		a.usage = *res.Usage
	}
	a.reasoning.add(msg.Reasoning)
	a.reasoning.add(msg.ReasoningContent)
	if raw := msg.ReasoningDetails; len(raw) > 0 && string(raw) != "null" {
		_ = json.Unmarshal(raw, &a.details)
		a.reasoning.add(detailsText(raw, "\n\n"))
	}
	for _, tc := range msg.ToolCalls {
		if tc.Type == "custom" {
			a.calls = append(a.calls, llm.ToolCall{ID: tc.ID, Name: tc.Custom.Name, Arguments: tc.Custom.Input})
			continue
		}
		a.calls = append(a.calls, llm.ToolCall{ID: tc.ID, Name: tc.Function.Name, Arguments: tc.Function.Arguments})
	}
	r := a.response()
	if r.Message.Reasoning != "" {
		sink(llm.Delta{Kind: llm.DeltaReasoning, Text: r.Message.Reasoning})
	}
	if r.Message.Content != "" {
		sink(llm.Delta{Kind: llm.DeltaText, Text: r.Message.Content})
	}
	for i, tc := range r.Message.ToolCalls {
		sink(llm.Delta{Kind: llm.DeltaToolCall, ToolName: tc.Name, ToolIndex: i})
	}
	return r, nil
}

// coerceContent turns non-string message content into text: a list gives
// its text parts joined by newlines, an object its text (or content, or
// its JSON).
func coerceContent(raw string) string {
	if raw == "" || raw == "null" {
		return ""
	}
	var v any
	if json.Unmarshal([]byte(raw), &v) != nil {
		return ""
	}
	switch x := v.(type) {
	case string:
		return x
	case []any:
		var parts []string
		for _, e := range x {
			switch p := e.(type) {
			case string:
				parts = append(parts, p)
			case map[string]any:
				if t, ok := p["text"].(string); ok {
					parts = append(parts, t)
				}
			}
		}
		return strings.Join(parts, "\n")
	case map[string]any:
		for _, k := range []string{"text", "content"} {
			if t, ok := x[k].(string); ok {
				return t
			}
		}
	}
	return raw
}

func newCallID() string {
	var b [12]byte
	_, _ = rand.Read(b[:])
	return "call_" + hex.EncodeToString(b[:])
}
