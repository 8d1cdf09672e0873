package anthropic

import (
	"encoding/json"
	"testing"

	"github.com/hermes-go/hermes/llm"
)

func TestConversionRules(t *testing.T) {
	sig1 := detail(`{"type":"thinking","thinking":"first thought","signature":"sig-1"}`)
	sig2 := detail(`{"type":"thinking","thinking":"second thought","signature":"sig-2"}`)
	red := detail(`{"type":"redacted_thinking","data":"opaque"}`)
	unsigned := detail(`{"type":"thinking","thinking":"no signature"}`)
	openrouter := detail(`{"type":"reasoning.text","text":"from another provider"}`)
	missing := llm.MissingResultText

	tests := []struct {
		name       string
		msgs       []llm.Message
		wantSystem any // nil: no system field
		want       []any
	}{
		{
			name:       "system prompt goes top-level as one string",
			msgs:       []llm.Message{llm.System("be brief"), llm.User("hi")},
			wantSystem: "be brief",
			want:       []any{u(txt("hi"))},
		},
		{
			name:       "several system messages are joined",
			msgs:       []llm.Message{llm.System("one"), llm.User("hi"), llm.System("two")},
			wantSystem: "one\n\ntwo",
			want:       []any{u(txt("hi"))},
		},
		{
			name: "blank system prompt is left out",
			msgs: []llm.Message{llm.System("  "), llm.User("hi")},
			want: []any{u(txt("hi"))},
		},
		{
			name: "consecutive tool results merge into one user message",
			msgs: []llm.Message{
				llm.User("add and multiply"),
				{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{call("c1", "add", `{"a":1}`), call("c2", "mul", `{"a":2}`)}},
				llm.ToolResult("c1", "add", "3"),
				llm.ToolResult("c2", "mul", "4"),
			},
			want: []any{
				u(txt("add and multiply")),
				a(use("c1", "add", `{"a":1}`), use("c2", "mul", `{"a":2}`)),
				u(res("c1", "3"), res("c2", "4")),
			},
		},
		{
			name: "empty tool output reads (no output)",
			msgs: []llm.Message{
				llm.User("go"),
				{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{call("c1", "run", `{}`)}},
				llm.ToolResult("c1", "run", " "),
			},
			want: []any{u(txt("go")), a(use("c1", "run", `{}`)), u(res("c1", "(no output)"))},
		},
		{
			name: "tool_use without a result gets a placeholder result",
			msgs: []llm.Message{
				llm.User("go"),
				{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{call("c1", "run", `{}`), call("c2", "run", `{}`)}},
				llm.ToolResult("c2", "run", "done"),
				llm.User("next"),
			},
			want: []any{
				u(txt("go")),
				a(use("c1", "run", `{}`), use("c2", "run", `{}`)),
				u(res("c2", "done"), res("c1", missing), txt("next")),
			},
		},
		{
			name: "result not in the immediately following message is replaced and dropped",
			msgs: []llm.Message{
				llm.User("go"),
				{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{call("c1", "run", `{}`)}},
				llm.User("interrupting"),
				llm.ToolResult("c1", "run", "late"),
			},
			want: []any{
				u(txt("go")),
				a(use("c1", "run", `{}`)),
				u(res("c1", missing), txt("interrupting")),
			},
		},
		{
			name: "orphan tool result is dropped",
			msgs: []llm.Message{
				llm.User("hi"),
				llm.Assistant("hello"),
				llm.ToolResult("ghost", "run", "nobody asked"),
				llm.User("again"),
			},
			want: []any{u(txt("hi")), a(txt("hello")), u(txt("again"))},
		},
		{
			name: "tool calls at the end of the history are answered",
			msgs: []llm.Message{
				llm.User("go"),
				{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{call("c1", "run", `{}`)}},
			},
			want: []any{u(txt("go")), a(use("c1", "run", `{}`)), u(res("c1", missing))},
		},
		{
			name:       "history starting with the assistant gets a leading user turn",
			msgs:       []llm.Message{llm.System("s"), llm.Assistant("I start"), llm.User("ok")},
			wantSystem: "s",
			want:       []any{u(txt("(empty)")), a(txt("I start")), u(txt("ok"))},
		},
		{
			name:       "empty history still sends a user turn",
			msgs:       []llm.Message{llm.System("s")},
			wantSystem: "s",
			want:       []any{u(txt("(empty)"))},
		},
		{
			name: "consecutive user messages merge",
			msgs: []llm.Message{llm.User("one"), llm.User("two")},
			want: []any{u(txt("one"), txt("two"))},
		},
		{
			name: "consecutive assistant messages merge",
			msgs: []llm.Message{llm.User("hi"), llm.Assistant("a"), {Role: llm.RoleAssistant, Content: "b", ToolCalls: []llm.ToolCall{call("c1", "run", `{}`)}}, llm.ToolResult("c1", "run", "ok")},
			want: []any{u(txt("hi")), a(txt("a"), txt("b"), use("c1", "run", `{}`)), u(res("c1", "ok"))},
		},
		{
			name: "tool ids are mapped onto the allowed alphabet on both sides",
			msgs: []llm.Message{
				llm.User("go"),
				{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{call("call:1.a/b", "run", `{}`), call("", "run", `{}`)}},
				llm.ToolResult("call:1.a/b", "run", "ok"),
				llm.ToolResult("", "run", "ok too"),
			},
			want: []any{
				u(txt("go")),
				a(use("call_1_a_b", "run", `{}`), use("tool_0", "run", `{}`)),
				u(res("call_1_a_b", "ok"), res("tool_0", "ok too")),
			},
		},
		{
			name: "arguments that are not a JSON object are sent as {}",
			msgs: []llm.Message{
				llm.User("go"),
				{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{call("c1", "run", `{"cmd": "ls"`), call("c2", "run", ""), call("c3", "run", `[1,2]`), call("c4", "run", ` {"ok":true} `)}},
				llm.ToolResult("c1", "run", "1"), llm.ToolResult("c2", "run", "2"), llm.ToolResult("c3", "run", "3"), llm.ToolResult("c4", "run", "4"),
			},
			want: []any{
				u(txt("go")),
				a(use("c1", "run", `{}`), use("c2", "run", `{}`), use("c3", "run", `{}`), use("c4", "run", `{"ok":true}`)),
				u(res("c1", "1"), res("c2", "2"), res("c3", "3"), res("c4", "4")),
			},
		},
		{
			name: "empty assistant content reads (empty)",
			msgs: []llm.Message{llm.User("hi"), llm.Assistant(""), llm.User("again")},
			want: []any{u(txt("hi")), a(txt("(empty)")), u(txt("again"))},
		},
		{
			name: "empty user content reads (empty message)",
			msgs: []llm.Message{llm.User("")},
			want: []any{u(txt("(empty message)"))},
		},
		{
			name: "signed thinking is replayed on the latest assistant turn only",
			msgs: []llm.Message{
				llm.User("q1"),
				{Role: llm.RoleAssistant, Content: "a1", ReasoningDetails: []json.RawMessage{sig1}},
				llm.User("q2"),
				{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{call("c1", "run", `{}`)}, ReasoningDetails: []json.RawMessage{sig2}},
				llm.ToolResult("c1", "run", "ok"),
			},
			want: []any{
				u(txt("q1")), a(txt("a1")), u(txt("q2")),
				a(think("sig-2", "second thought"), use("c1", "run", `{}`)),
				u(res("c1", "ok")),
			},
		},
		{
			name: "redacted thinking is kept, unsigned and foreign details are not",
			msgs: []llm.Message{
				llm.User("q"),
				{Role: llm.RoleAssistant, Content: "a", ReasoningDetails: []json.RawMessage{unsigned, red, openrouter, sig1}},
				llm.User("more"),
			},
			want: []any{u(txt("q")), a(redacted("opaque"), think("sig-1", "first thought"), txt("a")), u(txt("more"))},
		},
		{
			name: "a merged second assistant's thinking is dropped",
			msgs: []llm.Message{
				llm.User("q"),
				{Role: llm.RoleAssistant, Content: "a", ReasoningDetails: []json.RawMessage{sig1}},
				{Role: llm.RoleAssistant, Content: "b", ReasoningDetails: []json.RawMessage{sig2}},
			},
			want: []any{u(txt("q")), a(think("sig-1", "first thought"), txt("a"), txt("b"))},
		},
	}
	c := New(llm.Options{})
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := llm.CloneMessages(tt.msgs)
			body := wire(t, c, &llm.Request{Model: "claude-test", Messages: tt.msgs})
			assertJSON(t, "messages", body["messages"], tt.want)
			if sys, ok := body["system"]; ok != (tt.wantSystem != nil) || ok && sys != tt.wantSystem {
				t.Errorf("system = %#v, want %#v", body["system"], tt.wantSystem)
			}
			assertJSON(t, "history after conversion", tt.msgs, before)
		})
	}
}

func TestToolDefinitionsBecomeInputSchemas(t *testing.T) {
	c := New(llm.Options{})
	body := wire(t, c, &llm.Request{Model: "m", Messages: []llm.Message{llm.User("hi")}, Tools: []llm.ToolDef{
		{Name: "search", Description: "find things", Parameters: []byte(`{"type":"object","properties":{"q":{"type":"string"}},"required":["q"],"additionalProperties":false}`)},
		{Name: "noargs", Description: "", Parameters: nil},
		{Name: "union", Description: "d", Parameters: []byte(`{"type":"object","properties":{},"anyOf":[{"required":["x"]}]}`)},
		{Name: "search", Description: "duplicate", Parameters: []byte(`{}`)},
	}})
	assertJSON(t, "tools", body["tools"], []any{
		map[string]any{"name": "search", "description": "find things", "input_schema": map[string]any{
			"type": "object", "properties": map[string]any{"q": map[string]any{"type": "string"}}, "required": []any{"q"}, "additionalProperties": false}},
		map[string]any{"name": "noargs", "input_schema": map[string]any{"type": "object", "properties": map[string]any{}}},
		map[string]any{"name": "union", "description": "d", "input_schema": map[string]any{"type": "object", "properties": map[string]any{}}},
	})
}

func TestBadToolSchemaFailsTheCall(t *testing.T) {
	c := New(llm.Options{})
	_, err := c.buildRequest(&llm.Request{Model: "m", Messages: []llm.Message{llm.User("hi")},
		Tools: []llm.ToolDef{{Name: "broken", Parameters: []byte(`{"type":`)}}})
	if err == nil {
		t.Fatal("a tool with an unreadable schema was sent")
	}
}

func TestChangedToolSchemaIsSentAsChanged(t *testing.T) {
	c := New(llm.Options{})
	params := []byte(`{"type":"object","properties":{"a":{"type":"string"}}}`)
	req := &llm.Request{Model: "m", Messages: []llm.Message{llm.User("hi")}, Tools: []llm.ToolDef{{Name: "t", Parameters: params}}}
	first := wire(t, c, req)
	copy(params[len(params)-len(`"string"}}}`):], `"number"}}}`) // edited in place, same slice
	second := wire(t, c, req)
	schema := func(body map[string]any) any {
		return body["tools"].([]any)[0].(map[string]any)["input_schema"].(map[string]any)["properties"]
	}
	assertJSON(t, "first", schema(first), map[string]any{"a": map[string]any{"type": "string"}})
	assertJSON(t, "second", schema(second), map[string]any{"a": map[string]any{"type": "number"}})
}
