package llmtest

import (
	"reflect"
	"testing"

	"github.com/hermes-go/hermes/llm"
)

func TestSummarizeKeepsStreamOrder(t *testing.T) {
	s := Summarize([]llm.Delta{
		{Kind: llm.DeltaReasoning, Text: "think "}, {Kind: llm.DeltaText, Text: "Hel"}, {Kind: llm.DeltaReasoning, Text: "more"},
		{Kind: llm.DeltaText, Text: "lo"}, {Kind: llm.DeltaToolCall, ToolName: "a", ToolIndex: 0}, {Kind: llm.DeltaToolCall, ToolName: "b", ToolIndex: 1},
	})
	if s.Text != "Hello" || s.Reasoning != "think more" || !reflect.DeepEqual(s.ToolNames(), []string{"a", "b"}) || s.ToolCalls[1].ToolIndex != 1 {
		t.Fatalf("%+v", s)
	}
}
