package openai

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/hermes-go/hermes/llm"
)

// rsse frames Responses events the way the API does (event + data lines).
func rsse(events ...string) string {
	var b strings.Builder
	for _, e := range events {
		var head struct{ Type string }
		_ = json.Unmarshal([]byte(e), &head)
		b.WriteString("event: " + head.Type + "\ndata: " + e + "\n\n")
	}
	return b.String()
}

func responsesClient(f *fakeProvider, o llm.Options) *Responses {
	o.BaseURL = f.URL + "/v1"
	return NewResponses(o)
}

const completedText = `{"type":"response.completed","response":{"id":"resp_1","status":"completed","model":"gpt-5","output":[{"type":"message","id":"msg_1","role":"assistant","content":[{"type":"output_text","text":"ok"}]}],"usage":{"input_tokens":5,"output_tokens":1,"total_tokens":6}}}`

func sentResponses(t *testing.T, req *llm.Request) map[string]any {
	t.Helper()
	f := newFakeProvider(t, serveSSE(rsse(completedText)))
	if _, _, err := complete(t, responsesClient(f, llm.Options{}), req); err != nil {
		t.Fatal(err)
	}
	var body map[string]any
	if err := json.Unmarshal([]byte(f.lastBody()), &body); err != nil {
		t.Fatal(err)
	}
	return body
}

func TestResponsesRequestConversion(t *testing.T) {
	req := history("gpt-5")
	enc := json.RawMessage(`{"type":"reasoning","id":"rs_1","summary":[{"type":"summary_text","text":"User wants weather."}],"encrypted_content":"gAAA"}`)
	bare := json.RawMessage(`{"type":"reasoning","id":"rs_0","summary":[]}`)
	req.Messages[2].ReasoningItems = []json.RawMessage{bare, enc}
	req.Messages[2].ToolCalls[1].ID = "toolu_01ABC"
	req.Messages[4].ToolCallID = "toolu_01ABC"
	req.Messages[2].ToolCalls[2].ID = "fc_already"
	req.Messages[5].ToolCallID = "fc_already"
	body := sentResponses(t, req)

	if body["instructions"] != "You are Hermes." || body["store"] != false {
		t.Errorf("instructions %q store %v", body["instructions"], body["store"])
	}
	if !jsonEqual(string(mustJSON(body["include"])), `["reasoning.encrypted_content"]`) {
		t.Errorf("include %v", body["include"])
	}
	var items []map[string]any
	_ = json.Unmarshal(mustJSON(body["input"]), &items)
	var kinds []string
	for _, it := range items {
		k, _ := it["type"].(string)
		if k == "" || k == "message" {
			k = "message:" + it["role"].(string)
		}
		kinds = append(kinds, k)
	}
	want := "message:user,reasoning,message:assistant,function_call,function_call,function_call,function_call_output,function_call_output,function_call_output"
	if strings.Join(kinds, ",") != want {
		t.Fatalf("items\n got %v\nwant %s", kinds, want)
	}
	if !jsonEqual(string(mustJSON(items[0]["content"])), `[{"type":"input_text","text":"weather?"}]`) {
		t.Errorf("user item %v", items[0])
	}
	if !jsonEqual(string(mustJSON(items[1])), string(enc)) {
		t.Errorf("reasoning item not replayed verbatim: %v", items[1])
	}
	if !jsonEqual(string(mustJSON(items[2]["content"])), `[{"type":"output_text","text":"Checking.","annotations":[]}]`) {
		t.Errorf("assistant item %v", items[2])
	}
	calls := []struct{ callID, id, args string }{
		{"call_1", "fc_1", `{"city":"Florence","n":12345678901234567890,"units":"C"}`},
		{"toolu_01ABC", "fc_" + sha1Prefix("toolu_01ABC"), `{"city": "Flo`},
		{"fc_already", "fc_already", `{}`},
	}
	for i, c := range calls {
		it := items[3+i]
		if it["call_id"] != c.callID || it["id"] != c.id || it["arguments"] != c.args {
			t.Errorf("function_call %d = %v, want call_id %s id %s args %s", i, it, c.callID, c.id, c.args)
		}
		out := items[6+i]
		if out["call_id"] != c.callID {
			t.Errorf("function_call_output %d joined by %v, want call_id %s", i, out["call_id"], c.callID)
		}
	}
	if items[6]["output"] != "40 C" {
		t.Errorf("output not trimmed: %q", items[6]["output"])
	}
	tools := mustJSON(body["tools"])
	if !jsonEqual(string(tools), `[{"type":"function","name":"weather","description":"Get weather","strict":false,"parameters":{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}}]`) {
		t.Errorf("tools %s", tools)
	}
}

func sha1Prefix(s string) string {
	id := functionItemID(s)
	if len(id) != len("fc_")+24 {
		return "bad-length"
	}
	return id[3:]
}

func TestResponsesReasoningKnobs(t *testing.T) {
	tests := []struct {
		name, model, effort string
		reasoning           string // JSON of the reasoning field, "" when absent
		include             bool
	}{
		{"effort asks for a summary", "gpt-5", "high", `{"effort":"high","summary":"auto"}`, true},
		{"reasoning model without effort still keeps encrypted reasoning", "o4-mini", "", "", true},
		{"none turns reasoning off", "gpt-5.1", "none", `{"effort":"none"}`, false},
		{"non-reasoning model gets no include", "gpt-4o", "", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := simpleRequest()
			req.Model, req.ReasoningEffort, req.MaxTokens = tt.model, tt.effort, 900
			body := sentResponses(t, req)
			r, ok := body["reasoning"]
			if (tt.reasoning == "") == ok || (ok && !jsonEqual(string(mustJSON(r)), tt.reasoning)) {
				t.Errorf("reasoning %v, want %s", r, tt.reasoning)
			}
			if _, ok := body["include"]; ok != tt.include {
				t.Errorf("include %v, want present=%v", body["include"], tt.include)
			}
			if body["max_output_tokens"] != float64(900) {
				t.Errorf("max_output_tokens %v", body["max_output_tokens"])
			}
		})
	}
}

func TestResponsesStream(t *testing.T) {
	added := func(id, callID, name string) string {
		return `{"type":"response.output_item.added","output_index":0,"item":{"type":"function_call","id":"` + id + `","call_id":"` + callID + `","name":"` + name + `","arguments":""}}`
	}
	argDelta := func(id, d string) string {
		return `{"type":"response.function_call_arguments.delta","item_id":"` + id + `","delta":` + string(mustJSON(d)) + `}`
	}
	tests := []struct {
		name       string
		events     []string
		text       string
		calls      []llm.ToolCall
		finish     llm.FinishReason
		reasoning  string
		streamed   string
		errKind    llm.ErrorKind
		errMessage string
	}{
		{
			name: "interleaved argument deltas land on their own items; empty final output falls back to the stream",
			events: []string{
				added("fc_a", "call_a", "add"), added("fc_b", "call_b", "mul"),
				argDelta("fc_a", `{"a":`), argDelta("fc_b", `{"b":`), argDelta("fc_a", `1}`), argDelta("fc_b", `2}`),
				`{"type":"response.completed","response":{"id":"r","status":"completed","output":[],"usage":{"input_tokens":1,"output_tokens":2,"total_tokens":3}}}`,
			},
			calls:  []llm.ToolCall{{ID: "call_a", Name: "add", Arguments: `{"a":1}`}, {ID: "call_b", Name: "mul", Arguments: `{"b":2}`}},
			finish: llm.FinishToolCalls,
		},
		{
			name: "summary parts are separated",
			events: []string{
				`{"type":"response.reasoning_summary_text.delta","item_id":"rs_1","summary_index":0,"delta":"First."}`,
				`{"type":"response.reasoning_summary_text.delta","item_id":"rs_1","summary_index":1,"delta":"Second."}`,
				`{"type":"response.output_text.delta","item_id":"msg_1","delta":"Hi"}`,
				`{"type":"response.completed","response":{"id":"r","status":"completed","output":[` +
					`{"type":"reasoning","id":"rs_1","summary":[{"type":"summary_text","text":"First."},{"type":"summary_text","text":"Second."}],"encrypted_content":"gAAA"},` +
					`{"type":"message","role":"assistant","content":[{"type":"output_text","text":"Hi"}]}]}}`,
			},
			text: "Hi", finish: llm.FinishStop, reasoning: "First.\n\nSecond.", streamed: "First.Second.",
		},
		{
			name: "incomplete at max_output_tokens is length",
			events: []string{
				`{"type":"response.output_text.delta","item_id":"msg_1","delta":"Once upon"}`,
				`{"type":"response.incomplete","response":{"id":"r","status":"incomplete","incomplete_details":{"reason":"max_output_tokens"},"output":[{"type":"message","role":"assistant","content":[{"type":"output_text","text":"Once upon"}]}]}}`,
			},
			text: "Once upon", finish: llm.FinishLength,
		},
		{
			name: "refusal is content filter",
			events: []string{
				`{"type":"response.completed","response":{"id":"r","status":"completed","output":[{"type":"message","role":"assistant","content":[{"type":"refusal","refusal":"I can't help with that."}]}]}}`,
			},
			finish: llm.FinishContentFilter,
		},
		{
			name: "failed status is an invalid response",
			events: []string{
				`{"type":"response.failed","response":{"id":"r","status":"failed","error":{"code":"server_error","message":"The model crashed"},"output":[]}}`,
			},
			errKind: llm.ErrInvalidResponse, errMessage: "The model crashed",
		},
		{
			name:    "an error event is a provider error",
			events:  []string{`{"type":"error","code":"rate_limit_exceeded","message":"Too many requests, slow down","param":null}`},
			errKind: llm.ErrRateLimit, errMessage: "Too many requests, slow down",
		},
		{
			name:    "a stream that ends before its final event was cut: a connection error",
			events:  []string{`{"type":"response.output_text.delta","item_id":"msg_1","delta":"Hi"}`},
			errKind: llm.ErrConnection, errMessage: "stream ended before its final response event",
		},
		{
			name: "a final event without a status takes the event's",
			events: []string{
				`{"type":"response.completed","response":{"id":"r","output":[{"type":"message","role":"assistant","content":[{"type":"output_text","text":"Hi"}]}]}}`,
			},
			text: "Hi", finish: llm.FinishStop, streamed: "",
		},
		{
			name: "a final response still in progress is an invalid response",
			events: []string{
				`{"type":"response.output_text.delta","item_id":"msg_1","delta":"Hi"}`,
				`{"type":"response.completed","response":{"id":"r","status":"in_progress","output":[]}}`,
			},
			errKind: llm.ErrInvalidResponse, errMessage: "in_progress",
		},
		{
			name: "an incomplete response for an unknown reason names it",
			events: []string{
				`{"type":"response.output_text.delta","item_id":"msg_1","delta":"Once"}`,
				`{"type":"response.incomplete","response":{"id":"r","status":"incomplete","incomplete_details":{"reason":"server_overloaded"},"output":[{"type":"message","role":"assistant","content":[{"type":"output_text","text":"Once"}]}]}}`,
			},
			errKind: llm.ErrInvalidResponse, errMessage: `"server_overloaded"`,
		},
		{
			name:    "an unknown status names it",
			events:  []string{`{"type":"response.completed","response":{"id":"r","status":"paused","output":[{"type":"message","role":"assistant","content":[{"type":"output_text","text":"Hi"}]}]}}`},
			errKind: llm.ErrInvalidResponse, errMessage: `"paused"`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFakeProvider(t, serveSSE(rsse(tt.events...)))
			resp, col, err := complete(t, responsesClient(f, llm.Options{}), simpleRequest())
			if tt.errKind != "" {
				pe, ok := llm.AsProviderError(err)
				if !ok || pe.Kind != tt.errKind || resp != nil || !strings.Contains(pe.Error(), tt.errMessage) {
					t.Fatalf("got %v, %v; want %s error mentioning %q", resp, err, tt.errKind, tt.errMessage)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if resp.Message.Content != tt.text || resp.FinishReason != tt.finish {
				t.Errorf("content %q finish %q, want %q %q", resp.Message.Content, resp.FinishReason, tt.text, tt.finish)
			}
			if len(resp.Message.ToolCalls) != len(tt.calls) {
				t.Fatalf("calls %+v, want %+v", resp.Message.ToolCalls, tt.calls)
			}
			for i := range tt.calls {
				if resp.Message.ToolCalls[i] != tt.calls[i] {
					t.Errorf("call %d = %+v, want %+v", i, resp.Message.ToolCalls[i], tt.calls[i])
				}
			}
			if resp.Message.Reasoning != tt.reasoning || col.reasoning.String() != tt.streamed {
				t.Errorf("reasoning %q streamed %q, want %q %q", resp.Message.Reasoning, col.reasoning.String(), tt.reasoning, tt.streamed)
			}
			if tt.finish == llm.FinishContentFilter && resp.Refusal != "I can't help with that." {
				t.Errorf("refusal %q", resp.Refusal)
			}
		})
	}
}

func TestResponsesNonStreamed(t *testing.T) {
	f := newFakeProvider(t, serveJSON(`{"id":"resp_9","status":"completed","model":"gpt-5","output":[`+
		`{"type":"reasoning","id":"rs_9","summary":[{"type":"summary_text","text":"Plan."}],"encrypted_content":"gBBB"},`+
		`{"type":"function_call","id":"fc_9","call_id":"call_9","name":"weather","arguments":"{\"city\":\"Rome\"}"}],`+
		`"usage":{"input_tokens":10,"input_tokens_details":{"cached_tokens":4},"output_tokens":5,"output_tokens_details":{"reasoning_tokens":3},"total_tokens":15}}`))
	resp, col, err := complete(t, responsesClient(f, llm.Options{NoStream: true}), simpleRequest())
	if err != nil {
		t.Fatal(err)
	}
	var body map[string]any
	_ = json.Unmarshal([]byte(f.lastBody()), &body)
	if _, ok := body["stream"]; ok {
		t.Errorf("non-streamed call sent stream: %v", body["stream"])
	}
	m := resp.Message
	if m.Reasoning != "Plan." || len(m.ReasoningItems) != 1 || !hasEncryptedContent(m.ReasoningItems[0]) {
		t.Errorf("reasoning %q items %s", m.Reasoning, m.ReasoningItems)
	}
	if len(m.ToolCalls) != 1 || m.ToolCalls[0] != (llm.ToolCall{ID: "call_9", Name: "weather", Arguments: `{"city":"Rome"}`}) {
		t.Errorf("calls %+v", m.ToolCalls)
	}
	want := llm.Usage{InputTokens: 10, OutputTokens: 5, CacheReadTokens: 4, ReasoningTokens: 3, TotalTokens: 15}
	if resp.FinishReason != llm.FinishToolCalls || resp.Usage != want || resp.ID != "resp_9" {
		t.Errorf("finish %q usage %+v id %q", resp.FinishReason, resp.Usage, resp.ID)
	}
	if col.reasoning.String() != "Plan." || len(col.tools) != 1 || col.tools[0].ToolName != "weather" {
		t.Errorf("sink saw reasoning %q tools %+v", col.reasoning.String(), col.tools)
	}
}

func TestResponsesEmptyOutputIsInvalid(t *testing.T) {
	f := newFakeProvider(t, serveJSON(`{"id":"r","status":"completed","output":[]}`))
	_, _, err := complete(t, responsesClient(f, llm.Options{NoStream: true}), simpleRequest())
	if pe, ok := llm.AsProviderError(err); !ok || pe.Kind != llm.ErrInvalidResponse {
		t.Fatalf("err %v, want invalid_response", err)
	}
}
