package llmtest

import (
	"strings"

	"github.com/hermes-go/hermes/llm"
)

// Streamed summarises what a Complete call's sink received: the visible
// text and the reasoning as they were streamed, and the tool-call
// announcements in order.
type Streamed struct {
	Text      string
	Reasoning string
	ToolCalls []llm.Delta
}

// Summarize reads a sink's deltas, in the order they came.
func Summarize(deltas []llm.Delta) Streamed {
	var text, reasoning strings.Builder
	var s Streamed
	for _, d := range deltas {
		switch d.Kind {
		case llm.DeltaText:
			text.WriteString(d.Text)
		case llm.DeltaReasoning:
			reasoning.WriteString(d.Text)
		case llm.DeltaToolCall:
			s.ToolCalls = append(s.ToolCalls, d)
		}
	}
	s.Text, s.Reasoning = text.String(), reasoning.String()
	return s
}

// ToolNames returns the names of the announced tool calls, in order.
func (s Streamed) ToolNames() []string {
	var names []string
	for _, d := range s.ToolCalls {
		names = append(names, d.ToolName)
	}
	return names
}
