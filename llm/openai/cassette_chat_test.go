package openai

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/hermes-go/hermes/llm"
	"github.com/hermes-go/hermes/llm/llmtest"
)

// chatSuites are every recorded Chat Completions suite.
var chatSuites = []string{
	"TestOpenAICommon", "TestOpenAICompatibleCommon", "TestOpenAICompatibleThinking",
	"TestOpenRouterCommon", "TestOpenRouterCommonWithAnthropicCache", "TestOpenRouterThinking",
	"TestVercelCommon", "TestVercelThinking", "TestAzureCommon", "TestAzureThinking",
}

// TestChatReplaysEveryCassette replays each recorded Chat Completions
// conversation turn by turn through Chat and checks what comes out against
// the recorded response bodies, decoded here independently, and what goes
// out against the recorded request bodies (by shape).
func TestChatReplaysEveryCassette(t *testing.T) {
	if n := llmtest.EachCassette(t, chatSuites, replayChatCassette); n < 150 {
		t.Fatalf("replayed %d chat cassettes, want every one (>=150)", n)
	}
}

func replayChatCassette(t *testing.T, path string) {
	c, err := llmtest.LoadCassette(path)
	if err != nil {
		t.Fatal(err)
	}
	first := c.Interactions[0]
	streaming := first.Streaming()
	tr := c.Transport()
	client := NewChat(llm.Options{
		BaseURL:    strings.TrimSuffix(first.Request.URL, "/chat/completions"),
		APIKey:     "test-key",
		HTTPClient: &http.Client{Transport: tr},
		NoStream:   !streaming,
	})
	req := recordedChatRequest(t, first.Request.Body)
	var prev *llm.Response
	for i, in := range c.Interactions {
		if in.Streaming() != streaming {
			t.Fatalf("interaction %d: mixed streaming and non-streaming", i)
		}
		rec := decodeChatRequest(t, in.Request.Body)
		if i > 0 {
			req.Messages = append(req.Messages, prev.Message)
			req.Messages = append(req.Messages, recordedToolResults(t, rec, prev.Message)...)
		}
		var deltas []llm.Delta
		resp, err := client.Complete(context.Background(), &req, func(d llm.Delta) { deltas = append(deltas, d) })
		if err != nil {
			t.Fatalf("turn %d: %v", i, err)
		}
		want := expectChat(t, in.Response.Body, streaming)
		checkChatResponse(t, i, resp, want)
		checkChatDeltas(t, i, deltas, resp, want)
		checkChatRequestShape(t, i, client.f, tr.RequestBodies()[i], rec, req.Model)
		prev = resp
	}
	if len(tr.RequestBodies()) != len(c.Interactions) {
		t.Fatalf("sent %d requests, recording has %d", len(tr.RequestBodies()), len(c.Interactions))
	}
}

// recReq is a recorded Chat Completions request body.
type recReq struct {
	Model    string           `json:"model"`
	Messages []recReqMessage  `json:"messages"`
	Tools    []recTool        `json:"tools"`
	Max      int              `json:"max_tokens"`
	MaxComp  int              `json:"max_completion_tokens"`
	Effort   string           `json:"reasoning_effort"`
	Reason   *json.RawMessage `json:"reasoning"`
	Stream   bool             `json:"stream"`
	StreamOp *struct {
		IncludeUsage bool `json:"include_usage"`
	} `json:"stream_options"`
}

type recReqMessage struct {
	Role       string `json:"role"`
	Content    any    `json:"content"`
	ToolCallID string `json:"tool_call_id"`
	ToolCalls  []struct {
		ID       string `json:"id"`
		Function struct {
			Name      string `json:"name"`
			Arguments string `json:"arguments"`
		} `json:"function"`
	} `json:"tool_calls"`
	ReasoningContent *string           `json:"reasoning_content"`
	ReasoningDetails []json.RawMessage `json:"reasoning_details"`
}

type recTool struct {
	Function struct {
		Name        string          `json:"name"`
		Description string          `json:"description"`
		Parameters  json.RawMessage `json:"parameters"`
	} `json:"function"`
}

func decodeChatRequest(t *testing.T, body string) recReq {
	t.Helper()
	var r recReq
	if err := json.Unmarshal([]byte(body), &r); err != nil {
		t.Fatalf("recorded request: %v", err)
	}
	return r
}

// recordedChatRequest rebuilds the canonical request of a recording's
// first turn: its system and user messages, tools and knobs.
func recordedChatRequest(t *testing.T, body string) llm.Request {
	r := decodeChatRequest(t, body)
	req := llm.Request{Model: r.Model, MaxTokens: max(r.Max, r.MaxComp), ReasoningEffort: r.Effort}
	if r.Reason != nil {
		var ro struct {
			Effort  string `json:"effort"`
			Enabled bool   `json:"enabled"`
		}
		_ = json.Unmarshal(*r.Reason, &ro)
		req.ReasoningEffort = ro.Effort
		if ro.Effort == "" && ro.Enabled {
			req.ReasoningEffort = "medium"
		}
	}
	for _, m := range r.Messages {
		s, _ := m.Content.(string)
		req.Messages = append(req.Messages, llm.Message{Role: llm.Role(m.Role), Content: s})
	}
	for _, tl := range r.Tools {
		req.Tools = append(req.Tools, llm.ToolDef{Name: tl.Function.Name, Description: tl.Function.Description, Parameters: tl.Function.Parameters})
	}
	return req
}

// recordedToolResults are the tool messages the recording sent after the
// assistant turn, answering our previous response's calls.
func recordedToolResults(t *testing.T, rec recReq, prev llm.Message) []llm.Message {
	names := map[string]string{}
	for _, c := range prev.ToolCalls {
		names[c.ID] = c.Name
	}
	var out []llm.Message
	for _, m := range rec.Messages {
		if m.Role != "tool" {
			continue
		}
		if _, ok := names[m.ToolCallID]; !ok {
			t.Fatalf("recording answers call %q, which our previous response did not make (made %v)", m.ToolCallID, names)
		}
		s, _ := m.Content.(string)
		out = append(out, llm.ToolResult(m.ToolCallID, names[m.ToolCallID], s))
	}
	return out
}

func checkChatResponse(t *testing.T, turn int, resp *llm.Response, want expected) {
	t.Helper()
	m := resp.Message
	if m.Role != llm.RoleAssistant {
		t.Errorf("turn %d: role %q", turn, m.Role)
	}
	if m.Content != want.text {
		t.Errorf("turn %d: text\n got %q\nwant %q", turn, m.Content, want.text)
	}
	for _, r := range want.reasoning {
		if !strings.Contains(m.Reasoning, r) {
			t.Errorf("turn %d: reasoning lacks recorded %q\n got %q", turn, clip(r), clip(m.Reasoning))
		}
	}
	if len(want.reasoning) == 0 && m.Reasoning != "" {
		t.Errorf("turn %d: reasoning %q where the recording has none", turn, clip(m.Reasoning))
	}
	if len(m.ReasoningDetails) != want.details {
		t.Errorf("turn %d: %d reasoning_details entries, recording has %d", turn, len(m.ReasoningDetails), want.details)
	}
	checkCalls(t, turn, m.ToolCalls, want.calls)
	if resp.FinishReason != want.finish || m.FinishReason != want.finish {
		t.Errorf("turn %d: finish %q (message %q), want %q", turn, resp.FinishReason, m.FinishReason, want.finish)
	}
	if resp.Usage != want.usage {
		t.Errorf("turn %d: usage\n got %+v\nwant %+v", turn, resp.Usage, want.usage)
	}
	if resp.Model != want.model {
		t.Errorf("turn %d: model %q, want %q", turn, resp.Model, want.model)
	}
}

func checkCalls(t *testing.T, turn int, got []llm.ToolCall, want []llm.ToolCall) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("turn %d: %d tool calls %+v, want %d %+v", turn, len(got), got, len(want), want)
	}
	for i := range want {
		if got[i].ID != want[i].ID || got[i].Name != want[i].Name {
			t.Errorf("turn %d call %d: %s %s, want %s %s", turn, i, got[i].ID, got[i].Name, want[i].ID, want[i].Name)
		}
		if !jsonEqual(got[i].Arguments, want[i].Arguments) {
			t.Errorf("turn %d call %d: arguments %s, want %s", turn, i, got[i].Arguments, want[i].Arguments)
		}
	}
}

// checkChatDeltas checks what a sink saw: the visible text streamed
// before any tool call, reasoning when there was some, and one
// announcement per tool call in order.
func checkChatDeltas(t *testing.T, turn int, deltas []llm.Delta, resp *llm.Response, want expected) {
	t.Helper()
	got := llmtest.Summarize(deltas)
	for k, d := range got.ToolCalls {
		if d.ToolIndex != k {
			t.Errorf("turn %d: tool delta index %d, want %d", turn, d.ToolIndex, k)
		}
	}
	names := got.ToolNames()
	if len(want.calls) == 0 && got.Text != want.text {
		t.Errorf("turn %d: streamed text %q, want %q", turn, got.Text, want.text)
	}
	if len(want.calls) > 0 && !strings.HasPrefix(want.text, got.Text) {
		t.Errorf("turn %d: streamed text %q is not the start of %q", turn, got.Text, want.text)
	}
	if (len(want.reasoning) > 0) != (got.Reasoning != "") {
		t.Errorf("turn %d: streamed reasoning %q, recording has %d reasoning parts", turn, clip(got.Reasoning), len(want.reasoning))
	}
	if len(names) != len(want.calls) {
		t.Fatalf("turn %d: %d tool announcements %v, want %d", turn, len(names), names, len(want.calls))
	}
	for i, n := range names {
		if n != want.calls[i].Name {
			t.Errorf("turn %d: announced %q, want %q", turn, n, want.calls[i].Name)
		}
	}
	_ = resp
}

// checkChatRequestShape compares what we sent with what the recording
// sent: same roles in order, same call ids and names, same tool results,
// reasoning echoed the way the provider takes it.
func checkChatRequestShape(t *testing.T, turn int, f flavor, sent []byte, rec recReq, model string) {
	t.Helper()
	var got recReq
	if err := json.Unmarshal(sent, &got); err != nil {
		t.Fatalf("turn %d: we sent invalid JSON: %v", turn, err)
	}
	if got.Model != rec.Model {
		t.Errorf("turn %d: model %q, want %q", turn, got.Model, rec.Model)
	}
	if len(got.Messages) != len(rec.Messages) {
		t.Fatalf("turn %d: sent %d messages, recording %d", turn, len(got.Messages), len(rec.Messages))
	}
	for i, g := range got.Messages {
		r := rec.Messages[i]
		if g.Role != r.Role {
			t.Errorf("turn %d msg %d: role %q, want %q", turn, i, g.Role, r.Role)
		}
		if g.ToolCallID != r.ToolCallID {
			t.Errorf("turn %d msg %d: tool_call_id %q, want %q", turn, i, g.ToolCallID, r.ToolCallID)
		}
		if len(g.ToolCalls) != len(r.ToolCalls) {
			t.Errorf("turn %d msg %d: %d tool calls, want %d", turn, i, len(g.ToolCalls), len(r.ToolCalls))
			continue
		}
		for j := range g.ToolCalls {
			gc, rc := g.ToolCalls[j], r.ToolCalls[j]
			if gc.ID != rc.ID || gc.Function.Name != rc.Function.Name || !jsonEqual(gc.Function.Arguments, rc.Function.Arguments) {
				t.Errorf("turn %d msg %d call %d: %+v, want %+v", turn, i, j, gc, rc)
			}
		}
		if g.Role == "assistant" {
			if f.echoReasoning && r.ReasoningContent != nil && *r.ReasoningContent != "" && (g.ReasoningContent == nil || *g.ReasoningContent == "") {
				t.Errorf("turn %d msg %d: recording echoes reasoning_content, we do not", turn, i)
			}
			if f.gateway && len(r.ReasoningDetails) > 0 && len(g.ReasoningDetails) == 0 {
				t.Errorf("turn %d msg %d: recording replays reasoning_details, we do not", turn, i)
			}
			if f.official && (g.ReasoningContent != nil || g.ReasoningDetails != nil) {
				t.Errorf("turn %d msg %d: reasoning echoed to %s", turn, i, f.name)
			}
		}
	}
	if len(got.Tools) != len(rec.Tools) {
		t.Errorf("turn %d: %d tools, want %d", turn, len(got.Tools), len(rec.Tools))
	}
	for i := range got.Tools {
		if got.Tools[i].Function.Name != rec.Tools[i].Function.Name || !jsonEqual(string(got.Tools[i].Function.Parameters), string(rec.Tools[i].Function.Parameters)) {
			t.Errorf("turn %d: tool %d differs: %+v", turn, i, got.Tools[i].Function)
		}
	}
	if rec.Stream != got.Stream {
		t.Errorf("turn %d: stream %v, recording %v", turn, got.Stream, rec.Stream)
	}
	if got.Stream && (got.StreamOp == nil || !got.StreamOp.IncludeUsage) {
		t.Errorf("turn %d: streamed without stream_options.include_usage", turn)
	}
	// The token cap field is model-specific on OpenAI's own endpoints.
	if f.official && (rec.Max > 0) != (got.Max > 0) {
		t.Errorf("turn %d: max_tokens %d / max_completion_tokens %d, recording %d / %d", turn, got.Max, got.MaxComp, rec.Max, rec.MaxComp)
	}
	if (rec.Effort != "" || rec.Reason != nil) && got.Effort == "" && got.Reason == nil {
		t.Errorf("turn %d: recording asks for reasoning, we do not", turn)
	}
	if f.gateway && got.Effort != "" {
		t.Errorf("turn %d: gateway got reasoning_effort instead of the reasoning object", turn)
	}
	_ = model
}
