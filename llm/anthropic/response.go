package anthropic

import (
	"encoding/json"
	"errors"
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
	finish, err := finishReason(m.StopReason)
	if err != nil {
		return nil, &llm.ProviderError{Kind: llm.ErrInvalidResponse, Provider: provider, Message: err.Error()}
	}
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
	if finish == llm.FinishToolCalls && len(msg.ToolCalls) == 0 {
		return nil, &llm.ProviderError{Kind: llm.ErrInvalidResponse, Provider: provider,
			Message: "stop_reason tool_use without a tool_use block"}
	}
	msg.Content = strings.Join(text, textJoiner)
	msg.Reasoning = strings.Join(reasoning, reasoningJoiner)
	msg.FinishReason = finish
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

// finishReason maps stop_reason onto the canonical finish reasons. A
// missing reason means the message never finished; pause_turn (a server
// tool's turn to be resumed, which this transport never asks for) and
// reasons added after this code was written are not a normal stop either.
func finishReason(r anthropic.StopReason) (llm.FinishReason, error) {
	switch r {
	case anthropic.StopReasonEndTurn, anthropic.StopReasonStopSequence:
		return llm.FinishStop, nil
	case anthropic.StopReasonToolUse:
		return llm.FinishToolCalls, nil
	case anthropic.StopReasonMaxTokens, anthropic.StopReasonModelContextWindowExceeded:
		return llm.FinishLength, nil
	case anthropic.StopReasonRefusal:
		return llm.FinishContentFilter, nil
	case "":
		return "", errors.New("message has no stop_reason")
	}
	return "", fmt.Errorf("unknown stop_reason %q", r)
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
