package anthropic

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/anthropics/anthropic-sdk-go/v2"

	"github.com/hermes-go/hermes/llm"
	"github.com/hermes-go/hermes/llm/llmtest"
)

func complete(t *testing.T, r reply, noStream bool) (*llm.Response, []llm.Delta) {
	t.Helper()
	srv := newFakeServer(t, r)
	c := New(llm.Options{BaseURL: srv.URL, HTTPClient: srv.Client(), NoStream: noStream})
	var deltas []llm.Delta
	resp, err := c.Complete(t.Context(), &llm.Request{Model: "m", Messages: []llm.Message{llm.User("hi")}}, func(d llm.Delta) { deltas = append(deltas, d) })
	if err != nil {
		t.Fatal(err)
	}
	return resp, deltas
}

func TestStreamedDeltasAndAssembledMessage(t *testing.T) {
	body := sse(
		msgStart(`{"input_tokens":20,"output_tokens":1}`),
		blockStart(0, `{"type":"thinking","thinking":"","signature":""}`),
		blockDelta(0, `{"type":"thinking_delta","thinking":"Need the "}`),
		blockDelta(0, `{"type":"thinking_delta","thinking":"weather."}`),
		blockDelta(0, `{"type":"signature_delta","signature":"c2lnbmVk"}`),
		blockStop(0),
		blockStart(1, `{"type":"text","text":""}`),
		blockDelta(1, `{"type":"text_delta","text":"Let me "}`),
		blockDelta(1, `{"type":"text_delta","text":"check."}`),
		blockStop(1),
		blockStart(2, `{"type":"tool_use","id":"toolu_A","name":"weather","input":{}}`),
		blockDelta(2, `{"type":"input_json_delta","partial_json":"{\"city\":"}`),
		blockDelta(2, `{"type":"input_json_delta","partial_json":" \"Rome\"}"}`),
		blockStop(2),
		blockStart(3, `{"type":"text","text":""}`),
		blockDelta(3, `{"type":"text_delta","text":"And the time."}`),
		blockStop(3),
		blockStart(4, `{"type":"tool_use","id":"toolu_B","name":"clock","input":{}}`),
		blockStop(4),
		msgDelta("tool_use", `{"output_tokens":60}`),
		msgStop,
	)
	resp, deltas := complete(t, reply{body: body}, false)

	got := llmtest.Summarize(deltas)
	tools := got.ToolCalls
	if got.Text != "Let me check." {
		t.Errorf("streamed text %q: text after the first tool_use must not stream", got.Text)
	}
	if got.Reasoning != "Need the weather." {
		t.Errorf("streamed reasoning %q", got.Reasoning)
	}
	wantTools := []llm.Delta{{Kind: llm.DeltaToolCall, ToolName: "weather", ToolIndex: 0}, {Kind: llm.DeltaToolCall, ToolName: "clock", ToolIndex: 1}}
	if !reflect.DeepEqual(tools, wantTools) {
		t.Errorf("tool deltas %+v, want %+v", tools, wantTools)
	}

	m := resp.Message
	if m.Content != "Let me check.\nAnd the time." {
		t.Errorf("content %q", m.Content)
	}
	if m.Reasoning != "Need the weather." {
		t.Errorf("reasoning %q", m.Reasoning)
	}
	assertJSON(t, "reasoning details", m.ReasoningDetails, []any{think("c2lnbmVk", "Need the weather.")})
	want := []llm.ToolCall{{ID: "toolu_A", Name: "weather", Arguments: `{"city": "Rome"}`}, {ID: "toolu_B", Name: "clock", Arguments: `{}`}}
	if !reflect.DeepEqual(m.ToolCalls, want) {
		t.Errorf("tool calls %+v, want %+v", m.ToolCalls, want)
	}
	if resp.FinishReason != llm.FinishToolCalls || m.FinishReason != llm.FinishToolCalls {
		t.Errorf("finish %q", resp.FinishReason)
	}
}

func TestSeveralTextBlocksStreamAsTheyAreJoined(t *testing.T) {
	body := sse(
		msgStart(`{"input_tokens":5,"output_tokens":1}`),
		blockStart(0, `{"type":"text","text":""}`),
		blockDelta(0, `{"type":"text_delta","text":"one"}`),
		blockStop(0),
		blockStart(1, `{"type":"text","text":""}`),
		blockDelta(1, `{"type":"text_delta","text":"two"}`),
		blockStop(1),
		msgDelta("end_turn", `{"output_tokens":3}`),
		msgStop,
	)
	resp, deltas := complete(t, reply{body: body}, false)
	var text strings.Builder
	for _, d := range deltas {
		text.WriteString(d.Text)
	}
	if text.String() != resp.Message.Content || resp.Message.Content != "one\ntwo" {
		t.Fatalf("streamed %q, content %q; want both %q", text.String(), resp.Message.Content, "one\ntwo")
	}
}

func TestUsageTakesTheLatestCumulativeCounts(t *testing.T) {
	body := sse(
		msgStart(`{"input_tokens":10,"cache_read_input_tokens":100,"cache_creation_input_tokens":50,"output_tokens":1}`),
		blockStart(0, `{"type":"text","text":""}`),
		blockDelta(0, `{"type":"text_delta","text":"hi"}`),
		blockStop(0),
		msgDelta("", `{"output_tokens":5}`),
		msgDelta("end_turn", `{"input_tokens":10,"cache_read_input_tokens":100,"cache_creation_input_tokens":50,"output_tokens":20}`),
		msgStop,
	)
	resp, _ := complete(t, reply{body: body}, false)
	want := llm.Usage{InputTokens: 160, OutputTokens: 20, CacheReadTokens: 100, CacheWriteTokens: 50, TotalTokens: 180}
	if resp.Usage != want {
		t.Fatalf("usage %+v, want %+v", resp.Usage, want)
	}
}

func TestRedactedThinkingIsKeptForReplay(t *testing.T) {
	body := `{"id":"msg_9","type":"message","role":"assistant","model":"claude-test","content":[` +
		`{"type":"redacted_thinking","data":"EmwKAhgBEgy3va"},` +
		`{"type":"thinking","thinking":"visible part","signature":"sig-v"},` +
		`{"type":"text","text":"Answer."}],` +
		`"stop_reason":"end_turn","usage":{"input_tokens":7,"cache_read_input_tokens":3,"cache_creation_input_tokens":2,"output_tokens":9,"output_tokens_details":{"thinking_tokens":4}}}`
	resp, deltas := complete(t, reply{body: body}, true)
	if len(deltas) != 0 {
		t.Errorf("non-streamed call sent deltas %v", deltas)
	}
	m := resp.Message
	assertJSON(t, "reasoning details", m.ReasoningDetails, []any{redacted("EmwKAhgBEgy3va"), think("sig-v", "visible part")})
	if m.Reasoning != "visible part" || m.Content != "Answer." {
		t.Errorf("reasoning %q content %q", m.Reasoning, m.Content)
	}
	want := llm.Usage{InputTokens: 12, OutputTokens: 9, CacheReadTokens: 3, CacheWriteTokens: 2, ReasoningTokens: 4, TotalTokens: 21}
	if resp.Usage != want {
		t.Errorf("usage %+v, want %+v", resp.Usage, want)
	}
	if resp.ID != "msg_9" || resp.Model != "claude-test" {
		t.Errorf("id/model %q/%q", resp.ID, resp.Model)
	}

	// Replayed as the latest assistant turn, both blocks go back unchanged.
	body2 := wire(t, New(llm.Options{}), &llm.Request{Model: "m", Messages: []llm.Message{llm.User("q"), m, llm.User("more")}})
	blocks := body2["messages"].([]any)[1].(map[string]any)["content"]
	assertJSON(t, "replayed blocks", blocks, []any{redacted("EmwKAhgBEgy3va"), think("sig-v", "visible part"), txt("Answer.")})
}

func TestStopReasonMapping(t *testing.T) {
	for reason, want := range map[string]llm.FinishReason{
		"end_turn":                      llm.FinishStop,
		"stop_sequence":                 llm.FinishStop,
		"tool_use":                      llm.FinishToolCalls,
		"max_tokens":                    llm.FinishLength,
		"model_context_window_exceeded": llm.FinishLength,
		"refusal":                       llm.FinishContentFilter,
	} {
		var m anthropic.Message
		body := `{"content":[{"type":"text","text":"x"},{"type":"tool_use","id":"toolu_1","name":"t","input":{}}],"stop_reason":"` + reason + `"}`
		if err := json.Unmarshal([]byte(body), &m); err != nil {
			t.Fatal(err)
		}
		resp, err := normalise(&m, "anthropic")
		if err != nil {
			t.Fatal(err)
		}
		if resp.FinishReason != want {
			t.Errorf("stop_reason %s -> %s, want %s", reason, resp.FinishReason, want)
		}
	}
}

// A message that does not say why it stopped, or says it with a reason
// this transport does not handle, is not a normal stop.
func TestMissingOrUnknownStopReasonIsAnInvalidResponseNamingIt(t *testing.T) {
	for _, tt := range []struct{ body, want string }{
		{`{"content":[{"type":"text","text":"The final"}],"stop_reason":null}`, "no stop_reason"},
		{`{"content":[{"type":"text","text":"The final"}]}`, "no stop_reason"},
		{`{"content":[{"type":"text","text":"x"}],"stop_reason":"pause_turn"}`, `"pause_turn"`},
		{`{"content":[{"type":"text","text":"x"}],"stop_reason":"a_reason_added_later"}`, `"a_reason_added_later"`},
		{`{"content":[{"type":"text","text":"x"}],"stop_reason":"tool_use"}`, "without a tool_use block"},
	} {
		var m anthropic.Message
		if err := json.Unmarshal([]byte(tt.body), &m); err != nil {
			t.Fatal(err)
		}
		resp, err := normalise(&m, "anthropic")
		pe, ok := llm.AsProviderError(err)
		if resp != nil || !ok || pe.Kind != llm.ErrInvalidResponse || !strings.Contains(pe.Message, tt.want) {
			t.Errorf("%s: got %v, %v; want an invalid response saying %s", tt.body, resp, err, tt.want)
		}
	}
}

func TestEmptyContentIsValidOnlyForEndTurnAndRefusal(t *testing.T) {
	for reason, valid := range map[string]bool{"end_turn": true, "refusal": true, "max_tokens": false, "tool_use": false} {
		var m anthropic.Message
		_ = json.Unmarshal([]byte(`{"content":[],"stop_reason":"`+reason+`"}`), &m)
		_, err := normalise(&m, "anthropic")
		pe, isPE := llm.AsProviderError(err)
		if valid && err != nil || !valid && (!isPE || pe.Kind != llm.ErrInvalidResponse) {
			t.Errorf("stop_reason %s with no content: error %v, valid %v", reason, err, valid)
		}
	}
}
