package app

import (
	"testing"

	"github.com/hermes-go/hermes/llm"
)

// A side question's snapshot leaves out a round of tool calls still
// waiting for results, and keeps a finished one.
func TestSettledCutsAnUnfinishedToolRound(t *testing.T) {
	call := llm.Message{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{{ID: "1", Name: "terminal"}, {ID: "2", Name: "terminal"}}}
	res := func(id string) llm.Message { return llm.Message{Role: llm.RoleTool, ToolCallID: id, Content: "ok"} }
	user := llm.Message{Role: llm.RoleUser, Content: "go"}
	for _, tc := range []struct {
		in   []llm.Message
		want int
	}{
		{[]llm.Message{user}, 1},
		{[]llm.Message{user, call}, 1},
		{[]llm.Message{user, call, res("1")}, 1},
		{[]llm.Message{user, call, res("1"), res("2")}, 4},
		{[]llm.Message{user, call, res("1"), res("2"), {Role: llm.RoleAssistant, Content: "done"}}, 5},
	} {
		if got := settled(tc.in); len(got) != tc.want {
			t.Errorf("settled of %d messages kept %d, want %d", len(tc.in), len(got), tc.want)
		}
	}
}
