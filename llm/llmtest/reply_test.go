package llmtest_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/hermes-go/hermes/llm"
	"github.com/hermes-go/hermes/llm/llmtest"
)

// perFormat holds one expected wire value for each format, in the order
// of formats: Chat Completions, Responses, Anthropic.
type perFormat [3]string

func TestEveryReplyKindParsesInEveryFormat(t *testing.T) {
	weather := llm.ToolCall{Name: "weather", Arguments: `{"location":"Florence, Italy"}`}
	add := llm.ToolCall{Name: "add", Arguments: `{"a":2,"b":3}`}
	scenarios := []struct {
		name  string
		reply llmtest.Reply
		// text is the visible text; for a refusal Anthropic shows the
		// refusal as text (textPer overrides text when set).
		text      string
		textPer   *perFormat
		reasoning string
		refusal   perFormat
		calls     []llm.ToolCall
		finish    perFormat
	}{
		{
			name:   "text",
			reply:  llmtest.Reply{Text: "The current temperature in Florence, Italy is 40°C."},
			text:   "The current temperature in Florence, Italy is 40°C.",
			finish: perFormat{"stop", "completed", "end_turn"},
		},
		{
			name:   "one tool call with a generated id",
			reply:  llmtest.Reply{ToolCalls: []llm.ToolCall{weather}},
			calls:  []llm.ToolCall{weather},
			finish: perFormat{"tool_calls", "completed", "tool_use"},
		},
		{
			name:   "parallel tool calls after text",
			reply:  llmtest.Reply{Text: "Computing both.", ToolCalls: []llm.ToolCall{add, {Name: "multiply", Arguments: `{"a":2,"b":3}`}}},
			text:   "Computing both.",
			calls:  []llm.ToolCall{add, {Name: "multiply", Arguments: `{"a":2,"b":3}`}},
			finish: perFormat{"tool_calls", "completed", "tool_use"},
		},
		{
			name:   "scripted tool call id and empty arguments",
			reply:  llmtest.Reply{ToolCalls: []llm.ToolCall{{ID: "call_fixed_1", Name: "todo_list"}}},
			calls:  []llm.ToolCall{{ID: "call_fixed_1", Name: "todo_list", Arguments: "{}"}},
			finish: perFormat{"tool_calls", "completed", "tool_use"},
		},
		{
			name:   "arguments with multibyte characters",
			reply:  llmtest.Reply{ToolCalls: []llm.ToolCall{{Name: "write", Arguments: `{"text":"naïve café — 温度 40°C"}`}}},
			calls:  []llm.ToolCall{{Name: "write", Arguments: `{"text":"naïve café — 温度 40°C"}`}},
			finish: perFormat{"tool_calls", "completed", "tool_use"},
		},
		{
			name:      "reasoning then text",
			reply:     llmtest.Reply{Reasoning: "The user wants a greeting. Keep it short.", Text: "Hello!"},
			reasoning: "The user wants a greeting. Keep it short.",
			text:      "Hello!",
			finish:    perFormat{"stop", "completed", "end_turn"},
		},
		{
			name:      "reasoning then a tool call",
			reply:     llmtest.Reply{Reasoning: "I need the weather tool.", ToolCalls: []llm.ToolCall{weather}},
			reasoning: "I need the weather tool.",
			calls:     []llm.ToolCall{weather},
			finish:    perFormat{"tool_calls", "completed", "tool_use"},
		},
		{
			name:   "truncated by the output limit",
			reply:  llmtest.Reply{Text: "partial answer", FinishReason: llm.FinishLength},
			text:   "partial answer",
			finish: perFormat{"length", "incomplete/max_output_tokens", "max_tokens"},
		},
		{
			name:    "refusal",
			reply:   llmtest.Reply{Refusal: "I can't help with that."},
			textPer: &perFormat{"", "", "I can't help with that."},
			refusal: perFormat{"I can't help with that.", "I can't help with that.", ""},
			finish:  perFormat{"stop", "completed", "refusal"},
		},
		{
			name:   "empty",
			reply:  llmtest.Reply{Empty: true, Text: "ignored"},
			finish: perFormat{"(no choices)", "completed (no output)", "end_turn (no content)"},
		},
		{
			name:   "unknown finish reason sent verbatim",
			reply:  llmtest.Reply{Text: "paused", FinishReason: "pause_turn"},
			text:   "paused",
			finish: perFormat{"pause_turn", "incomplete/pause_turn", "pause_turn"},
		},
	}
	for _, sc := range scenarios {
		for fi, f := range formats {
			for _, stream := range []bool{false, true} {
				t.Run(fmt.Sprintf("%s/%s/stream=%v", sc.name, f.name, stream), func(t *testing.T) {
					srv := llmtest.NewServer(t)
					srv.Enqueue(sc.reply)
					g := mustCall(t, f.call, srv, stream)

					wantText := sc.text
					if sc.textPer != nil {
						wantText = sc.textPer[fi]
					}
					if g.Text != wantText {
						t.Errorf("text = %q, want %q", g.Text, wantText)
					}
					if g.Reasoning != sc.reasoning {
						t.Errorf("reasoning = %q, want %q", g.Reasoning, sc.reasoning)
					}
					if sc.reasoning != "" && f.format != llm.ChatCompletions && g.Signature == "" {
						t.Errorf("reasoning came without a signature / encrypted_content")
					}
					if g.Refusal != sc.refusal[fi] {
						t.Errorf("refusal = %q, want %q", g.Refusal, sc.refusal[fi])
					}
					if g.Finish != sc.finish[fi] {
						t.Errorf("finish = %q, want %q", g.Finish, sc.finish[fi])
					}
					checkCalls(t, f.format, g.Calls, sc.calls)
					if stream && wantText != "" && strings.Contains(wantText, " ") && g.Deltas < 2 {
						t.Errorf("text arrived in %d deltas, want it streamed in pieces", g.Deltas)
					}
					if !sc.reply.Empty && (g.Usage.InputTokens == 0 || g.Usage.OutputTokens == 0) {
						t.Errorf("usage = %+v, want estimated non-zero counts", g.Usage)
					}
					if g.Model == "" {
						t.Errorf("no model reported")
					}
				})
			}
		}
	}
}

// checkCalls compares tool calls; a call scripted without an id must come
// back with a generated id in the provider's style.
func checkCalls(t *testing.T, format llm.APIMode, gotCalls, want []llm.ToolCall) {
	t.Helper()
	if len(gotCalls) != len(want) {
		t.Fatalf("tool calls = %+v, want %+v", gotCalls, want)
	}
	prefix := "call_"
	if format == llm.AnthropicMessages {
		prefix = "toolu_"
	}
	seen := map[string]bool{}
	for i, c := range gotCalls {
		w := want[i]
		if c.Name != w.Name || c.Arguments != w.Arguments {
			t.Errorf("call %d = %s(%s), want %s(%s)", i, c.Name, c.Arguments, w.Name, w.Arguments)
		}
		switch {
		case w.ID != "" && c.ID != w.ID:
			t.Errorf("call %d id = %q, want the scripted %q", i, c.ID, w.ID)
		case w.ID == "" && !strings.HasPrefix(c.ID, prefix):
			t.Errorf("call %d id = %q, want a generated %s… id", i, c.ID, prefix)
		}
		if seen[c.ID] {
			t.Errorf("call %d reuses id %q", i, c.ID)
		}
		seen[c.ID] = true
	}
}

func TestScriptedUsageAndModelAreReported(t *testing.T) {
	usage := llm.Usage{InputTokens: 1200, OutputTokens: 35, CacheReadTokens: 1000, ReasoningTokens: 10}
	for _, f := range formats {
		for _, stream := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/stream=%v", f.name, stream), func(t *testing.T) {
				srv := llmtest.NewServer(t)
				srv.Enqueue(llmtest.Reply{Text: "ok", Usage: &usage, Model: "served-model-2025"})
				g := mustCall(t, f.call, srv, stream)
				want := usage
				want.TotalTokens = 1235
				if f.format == llm.AnthropicMessages {
					want.ReasoningTokens = 0 // Anthropic does not report it separately
				}
				if g.Usage != want {
					t.Errorf("usage = %+v, want %+v", g.Usage, want)
				}
				if g.Model != "served-model-2025" {
					t.Errorf("model = %q, want the scripted one", g.Model)
				}
			})
		}
	}
}

func TestModelDefaultsToTheRequestedOne(t *testing.T) {
	want := perFormat{"gpt-4o", "gpt-5", "claude-sonnet-4-20250514"}
	for i, f := range formats {
		t.Run(f.name, func(t *testing.T) {
			srv := llmtest.NewServer(t)
			srv.Enqueue(llmtest.Reply{Text: "ok"})
			if g := mustCall(t, f.call, srv, true); g.Model != want[i] {
				t.Errorf("model = %q, want %q", g.Model, want[i])
			}
		})
	}
}
