package apiserver_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/hermes-go/hermes/gateway/apiserver"
	"github.com/hermes-go/hermes/llm"
	"github.com/hermes-go/hermes/llm/llmtest"
)

func outputText(m map[string]any) string {
	var b strings.Builder
	for _, it := range m["output"].([]any) {
		item := it.(map[string]any)
		if item["type"] != "message" {
			continue
		}
		for _, c := range item["content"].([]any) {
			b.WriteString(c.(map[string]any)["text"].(string))
		}
	}
	return b.String()
}

// Responses chain by previous_response_id in one stored session; a
// response that is not its session's latest branches into a new one.
// A stored response is read back and deleted.
func TestResponsesChainBranchAndAreKept(t *testing.T) {
	f := newFixture(t, apiserver.Options{})
	f.llm.Handle(func(r *llmtest.Request) llmtest.Reply {
		msgs := r.Messages()
		return llmtest.Reply{Text: "echo: " + msgs[len(msgs)-1].Content}
	})
	create := func(body map[string]any) (map[string]any, string) {
		t.Helper()
		resp, b := f.do(t, http.MethodPost, "/v1/responses", body)
		if resp.StatusCode != 200 {
			t.Fatalf("%d %s", resp.StatusCode, b)
		}
		return decodeJSON(t, b), resp.Header.Get("X-Hermes-Session-Id")
	}
	r1, s1 := create(map[string]any{"model": "x", "input": "my name is Ada", "instructions": "Be brief."})
	if r1["object"] != "response" || r1["status"] != "completed" || outputText(r1) != "echo: my name is Ada" {
		t.Fatalf("r1 %v", r1)
	}
	if !strings.Contains(f.llm.Requests()[0].System(), "Be brief.") {
		t.Fatal("instructions are not in the system prompt")
	}
	r2, s2 := create(map[string]any{"input": "what is my name?", "previous_response_id": r1["id"]})
	if s2 != s1 || r2["previous_response_id"] != r1["id"] {
		t.Fatalf("r2 continued session %s, want %s", s2, s1)
	}
	if sent := f.llm.Requests()[1].Messages(); len(sent) != 4 || sent[1].Content != "my name is Ada" {
		t.Fatalf("r2 sent %+v", sent)
	}
	// r1 is no longer its session's latest: continuing from it branches.
	_, s3 := create(map[string]any{"input": []any{map[string]any{"role": "user", "content": []any{map[string]any{"type": "input_text", "text": "again?"}}}},
		"previous_response_id": r1["id"]})
	if s3 == s1 {
		t.Fatal("continuing from an older response wrote into the same session")
	}
	if sent := f.llm.Requests()[2].Messages(); len(sent) != 4 || sent[1].Content != "my name is Ada" || sent[3].Content != "again?" {
		t.Fatalf("the branch sent %+v", sent)
	}
	branch, _ := f.rt.Store().Get(context.Background(), s3)
	if branch.ParentID != s1 || branch.Source != "api_server" {
		t.Fatalf("branch session %+v", branch)
	}

	resp, b := f.do(t, http.MethodGet, "/v1/responses/"+r2["id"].(string), nil)
	if resp.StatusCode != 200 || outputText(decodeJSON(t, b)) != "echo: what is my name?" {
		t.Fatalf("GET %d %s", resp.StatusCode, b)
	}
	resp, b = f.do(t, http.MethodDelete, "/v1/responses/"+r2["id"].(string), nil)
	if m := decodeJSON(t, b); resp.StatusCode != 200 || m["deleted"] != true {
		t.Fatalf("DELETE %d %s", resp.StatusCode, b)
	}
	for _, method := range []string{http.MethodGet, http.MethodDelete} {
		resp, b = f.do(t, method, "/v1/responses/"+r2["id"].(string), nil)
		if resp.StatusCode != 404 {
			t.Fatalf("%s after delete: %d %s", method, resp.StatusCode, b)
		}
	}
	resp, b = f.do(t, http.MethodPost, "/v1/responses", map[string]any{"input": "x", "previous_response_id": "resp_missing"})
	if _, code, _ := errorOf(t, b); resp.StatusCode != 404 || code != "previous_response_not_found" {
		t.Fatalf("unknown previous: %d %s", resp.StatusCode, b)
	}
}

// A named conversation keeps one session across requests.
func TestANamedConversationContinuesItsSession(t *testing.T) {
	f := newFixture(t, apiserver.Options{})
	f.llm.Enqueue(llmtest.Reply{Text: "noted"}, llmtest.Reply{Text: "blue"})
	_, b := f.do(t, http.MethodPost, "/v1/responses", map[string]any{"input": "my colour is blue", "conversation": "colours"})
	first := decodeJSON(t, b)
	if c, _ := first["conversation"].(map[string]any); c["id"] != "colours" {
		t.Fatalf("first %s", b)
	}
	f.do(t, http.MethodPost, "/v1/responses", map[string]any{"input": "my colour?", "conversation": map[string]any{"id": "colours"}})
	if sent := f.llm.Requests()[1].Messages(); len(sent) != 4 || sent[1].Content != "my colour is blue" {
		t.Fatalf("second turn sent %+v", sent)
	}
	resp, b := f.do(t, http.MethodPost, "/v1/responses", map[string]any{"input": "x", "conversation": "colours", "previous_response_id": first["id"]})
	if resp.StatusCode != 400 {
		t.Fatalf("both given: %d %s", resp.StatusCode, b)
	}
}

// Streamed, a response sends the Responses API's events: the tool call
// and its output as items, the text as deltas, then response.completed.
func TestAStreamedResponseSendsItsItemsAsEvents(t *testing.T) {
	f := newFixture(t, apiserver.Options{})
	f.llm.Enqueue(
		llmtest.Reply{ToolCalls: []llm.ToolCall{{ID: "call_1", Name: "search_files", Arguments: `{"pattern":"x"}`}}},
		llmtest.Reply{Text: "Nothing matched here."},
	)
	resp, raw := f.do(t, http.MethodPost, "/v1/responses", map[string]any{"input": "search", "stream": true})
	if resp.StatusCode != 200 {
		t.Fatalf("%d %s", resp.StatusCode, raw)
	}
	var types []string
	var text strings.Builder
	var completed map[string]any
	for i, e := range readSSE(t, raw) {
		m := decodeJSON(t, []byte(e.data))
		if m["type"] != e.name || m["sequence_number"] != float64(i) {
			t.Fatalf("event %d: name %q data %s", i, e.name, e.data)
		}
		types = append(types, e.name)
		switch e.name {
		case "response.output_text.delta":
			text.WriteString(m["delta"].(string))
		case "response.completed":
			completed = m["response"].(map[string]any)
		}
	}
	joined := strings.Join(types, " ")
	for _, want := range []string{"response.created", "response.output_item.added", "response.output_text.delta", "response.output_item.done", "response.completed"} {
		if !strings.Contains(joined, want) {
			t.Fatalf("no %s in %s", want, joined)
		}
	}
	if text.String() != "Nothing matched here." || completed == nil || outputText(completed) != "Nothing matched here." {
		t.Fatalf("text %q completed %v", text.String(), completed)
	}
	var kinds []string
	for _, it := range completed["output"].([]any) {
		kinds = append(kinds, it.(map[string]any)["type"].(string))
	}
	if strings.Join(kinds, ",") != "function_call,function_call_output,message" {
		t.Fatalf("output items %v", kinds)
	}
}
