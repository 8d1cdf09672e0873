package batch

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/hermes-go/hermes/llm"
)

// The turns are upstream's, byte for byte: reasoning in <think> (an
// empty block when there was none), scratchpads turned into <think>,
// each call as <tool_call>, a batch of results as one tool turn of
// <tool_response> blocks joined by newlines, JSON results embedded as
// JSON, and Python's separators.
func TestConversationsAreUpstreamsShareGPT(t *testing.T) {
	msgs := []llm.Message{
		llm.User("count the files"),
		{Role: llm.RoleAssistant, Content: "Let me look.", Reasoning: "ls will do", ToolCalls: []llm.ToolCall{
			{ID: "c1", Name: "terminal", Arguments: `{"command":"ls","timeout":5}`},
			{ID: "c2", Name: "read_file", Arguments: `not json`},
		}},
		{Role: llm.RoleTool, ToolCallID: "c1", Name: "terminal", Content: `{"output": "a, b: c", "exit_code": 0}`},
		{Role: llm.RoleTool, ToolCallID: "c2", Name: "read_file", Content: "Error: no such file"},
		llm.User("and now?"),
		{Role: llm.RoleAssistant, Content: "<REASONING_SCRATCHPAD>two</REASONING_SCRATCHPAD>\nTwo files."},
		{Role: llm.RoleAssistant, Content: "Plain answer."},
	}
	tools := []llm.ToolDef{{Name: "terminal", Description: "Run a command.", Parameters: json.RawMessage(`{"type":"object","properties":{"command":{"type":"string"}}}`)}}
	got := Conversations(msgs, "count the files", tools)
	want := []Turn{
		{"system", strings.Replace(trajectorySystem, "%TOOLS%",
			`[{"name": "terminal", "description": "Run a command.", "parameters": {"type": "object", "properties": {"command": {"type": "string"}}}, "required": null}]`, 1)},
		{"human", "count the files"},
		{"gpt", "<think>\nls will do\n</think>\nLet me look.\n<tool_call>\n{\"name\": \"terminal\", \"arguments\": {\"command\": \"ls\", \"timeout\": 5}}\n</tool_call>\n<tool_call>\n{\"name\": \"read_file\", \"arguments\": {}}\n</tool_call>"},
		{"tool", "<tool_response>\n{\"tool_call_id\": \"c1\", \"name\": \"terminal\", \"content\": {\"output\": \"a, b: c\", \"exit_code\": 0}}\n</tool_response>\n" +
			"<tool_response>\n{\"tool_call_id\": \"c2\", \"name\": \"read_file\", \"content\": \"Error: no such file\"}\n</tool_response>"},
		{"human", "and now?"},
		{"gpt", "<think>two</think>\nTwo files."},
		{"gpt", "<think>\n</think>\nPlain answer."},
	}
	if len(got) != len(want) {
		t.Fatalf("%d turns, want %d: %+v", len(got), len(want), got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("turn %d:\n got %q\nwant %q", i, got[i], want[i])
		}
	}
	if !strings.HasPrefix(got[0].Value, "You are a function calling AI model.") || !strings.HasSuffix(got[0].Value, "</tool_call>") {
		t.Errorf("system turn: %q", got[0].Value)
	}
}

func TestToolStatsTrustTheExecutorThenTheContent(t *testing.T) {
	msgs := []llm.Message{
		llm.User("x"),
		{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{{ID: "a", Name: "terminal"}, {ID: "b", Name: "terminal"}, {ID: "c", Name: "read_file"}, {ID: "d", Name: "read_file"}}},
		{Role: llm.RoleTool, ToolCallID: "a", Content: "fine"},
		{Role: llm.RoleTool, ToolCallID: "b", Content: "Command not run: DENIED"},
		{Role: llm.RoleTool, ToolCallID: "c", Content: `{"error": "missing"}`},
		{Role: llm.RoleTool, ToolCallID: "d", Content: `{"success": true}`},
	}
	got := toolStats(msgs, map[string]bool{"a": false, "b": true})
	if got["terminal"] != (ToolCount{2, 1, 1}) || got["read_file"] != (ToolCount{2, 1, 1}) {
		t.Errorf("stats %+v", got)
	}
	e := newEntry(Prompt{Index: 3, Text: "x"}, []string{"terminal"}, &Outcome{Messages: msgs, ToolErrors: map[string]bool{"b": true}}, "local", []string{"patch", "terminal"}, fixedNow())
	if e.ToolStats["patch"] != (ToolCount{}) || e.ToolErrorCounts["patch"] != 0 || e.ToolErrorCounts["terminal"] != 1 || e.ToolErrorCounts["read_file"] != 1 {
		t.Errorf("entry stats %+v errors %+v", e.ToolStats, e.ToolErrorCounts)
	}
}
