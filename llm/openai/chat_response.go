package openai

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
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

func (a *assembly) response(provider string) (*llm.Response, error) {
	finish, err := chatFinish(provider, a.finish, len(a.calls) > 0)
	if err != nil {
		return nil, err
	}
	visible, inline := llm.SplitThink(a.content)
	a.reasoning.add(inline)
	for i := range a.calls {
		if a.calls[i].ID == "" {
			// Results are matched to calls by id; a server that omits ids
			// (some local ones) still needs one.
			a.calls[i].ID = newCallID()
		}
	}
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
	return r, nil
}

// chatFinish normalises a Chat Completions finish_reason. Some servers
// report "stop" even when the turn ends in tool calls. A missing reason,
// one this transport does not know (OpenRouter's and Mistral's "error",
// vLLM's "abort", ...), and a tool-call reason without a call are invalid
// responses: none of them says the answer is whole.
func chatFinish(provider, reason string, hasCalls bool) (llm.FinishReason, error) {
	switch reason {
	case "length", "max_tokens", "model_length":
		return llm.FinishLength, nil
	case "content_filter", "refusal", "safety":
		return llm.FinishContentFilter, nil
	case "tool_calls", "function_call":
		if !hasCalls {
			return "", invalidResponse(provider, fmt.Sprintf("finish_reason %q without a tool call", reason))
		}
		return llm.FinishToolCalls, nil
	// TGI reports eos_token and stop_sequence; gateways in front of
	// Anthropic models sometimes pass end_turn through.
	case "stop", "eos_token", "stop_sequence", "end_turn":
		if hasCalls {
			return llm.FinishToolCalls, nil
		}
		return llm.FinishStop, nil
	case "":
		return "", invalidResponse(provider, "response has no finish_reason")
	}
	return "", invalidResponse(provider, fmt.Sprintf("unknown finish_reason %q", reason))
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
	if fc := msg.FunctionCall; fc != nil && fc.Name != "" {
		// The deprecated functions API: one call, no id (one is made up).
		a.calls = append(a.calls, llm.ToolCall{Name: fc.Name, Arguments: fc.Arguments})
	}
	r, err := a.response(provider)
	if err != nil {
		return nil, err
	}
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
