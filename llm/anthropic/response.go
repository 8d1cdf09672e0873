package anthropic

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/anthropics/anthropic-sdk-go/v2"

	"github.com/hermes-go/hermes/llm"
)

// Separators used when a response holds several blocks of one kind.
const (
	textJoiner      = "\n"
	reasoningJoiner = "\n\n"
)

// normalise turns an assembled Messages API response into the canonical
// Response: text blocks joined into content, thinking into Reasoning plus
// the raw signed blocks in ReasoningDetails (redacted blocks too, so they
// can be replayed), tool_use blocks into tool calls in order.
func normalise(m *anthropic.Message, provider string) (*llm.Response, error) {
	if len(m.Content) == 0 && m.StopReason != anthropic.StopReasonEndTurn && m.StopReason != anthropic.StopReasonRefusal {
		return nil, &llm.ProviderError{
			Kind: llm.ErrInvalidResponse, Provider: provider,
			Message: fmt.Sprintf("empty content with stop_reason %q", m.StopReason),
		}
	}
	var text, reasoning []string
	msg := llm.Message{Role: llm.RoleAssistant}
	for i := range m.Content {
		b := &m.Content[i]
		switch b.Type {
		case "text":
			if b.Text != "" {
				text = append(text, b.Text)
			}
		case "thinking":
			if b.Thinking != "" {
				reasoning = append(reasoning, b.Thinking)
			}
			msg.ReasoningDetails = append(msg.ReasoningDetails, detailJSON(thinkingDetail{Type: "thinking", Thinking: b.Thinking, Signature: b.Signature}))
		case "redacted_thinking":
			msg.ReasoningDetails = append(msg.ReasoningDetails, detailJSON(thinkingDetail{Type: "redacted_thinking", Data: b.Data}))
		case "tool_use":
			args := strings.TrimSpace(string(b.Input))
			if args == "" || args == "null" {
				args = "{}"
			}
			msg.ToolCalls = append(msg.ToolCalls, llm.ToolCall{ID: b.ID, Name: b.Name, Arguments: args})
		}
	}
	msg.Content = strings.Join(text, textJoiner)
	msg.Reasoning = strings.Join(reasoning, reasoningJoiner)
	msg.FinishReason = finishReason(m.StopReason)
	return &llm.Response{
		Message:      msg,
		FinishReason: msg.FinishReason,
		Usage:        usage(&m.Usage),
		Model:        m.Model,
		ID:           m.ID,
	}, nil
}

func detailJSON(d thinkingDetail) json.RawMessage {
	b, _ := json.Marshal(d) // plain strings: cannot fail
	return b
}

// finishReason maps stop_reason onto the canonical finish reasons; an
// unknown or missing reason is a normal stop.
func finishReason(r anthropic.StopReason) llm.FinishReason {
	switch r {
	case anthropic.StopReasonToolUse:
		return llm.FinishToolCalls
	case anthropic.StopReasonMaxTokens, anthropic.StopReasonModelContextWindowExceeded:
		return llm.FinishLength
	case anthropic.StopReasonRefusal:
		return llm.FinishContentFilter
	}
	return llm.FinishStop
}

// usage converts Anthropic usage, whose input_tokens excludes the cached
// part, into canonical usage, whose InputTokens counts every prompt token.
func usage(u *anthropic.Usage) llm.Usage {
	in := u.InputTokens + u.CacheReadInputTokens + u.CacheCreationInputTokens
	return llm.Usage{
		InputTokens:      in,
		OutputTokens:     u.OutputTokens,
		CacheReadTokens:  u.CacheReadInputTokens,
		CacheWriteTokens: u.CacheCreationInputTokens,
		ReasoningTokens:  u.OutputTokensDetails.ThinkingTokens,
		TotalTokens:      in + u.OutputTokens,
	}
}
