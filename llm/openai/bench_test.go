package openai

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/hermes-go/hermes/llm"
)

// memTransport answers every request with the same body from memory, after
// reading the request body (so request encoding is part of the cost).
type memTransport struct {
	contentType, body string
}

func (m memTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Body != nil {
		io.Copy(io.Discard, r.Body)
		r.Body.Close()
	}
	return &http.Response{
		StatusCode: 200, Status: "200 OK", Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header:  http.Header{"Content-Type": {m.contentType}},
		Body:    io.NopCloser(strings.NewReader(m.body)),
		Request: r, ContentLength: -1,
	}, nil
}

// history50 is a 50-message agent conversation: a system prompt, then
// rounds of user request, assistant tool call (with reasoning) and result.
func history50() *llm.Request {
	req := &llm.Request{Model: "gpt-5", MaxTokens: 4096, ReasoningEffort: "medium"}
	req.Messages = append(req.Messages, llm.System(strings.Repeat("You are Hermes, a helpful agent. ", 40)))
	for i := 0; len(req.Messages) < 50; i++ {
		id := fmt.Sprintf("call_%08d", i)
		req.Messages = append(req.Messages,
			llm.User(fmt.Sprintf("Please read file number %d and summarise what it says about the build.", i)),
			llm.Message{
				Role: llm.RoleAssistant, Content: "Reading it now.",
				Reasoning: "The user wants a summary; I should read the file first.",
				ToolCalls: []llm.ToolCall{{ID: id, Name: "read_file", Arguments: fmt.Sprintf(`{"path":"/src/file_%d.go","offset":0,"limit":200}`, i)}},
			},
			llm.ToolResult(id, "read_file", strings.Repeat("package main // some code line\n", 12)),
		)
	}
	req.Messages = req.Messages[:50]
	for _, n := range []string{"read_file", "write_file", "terminal", "search", "todo"} {
		req.Tools = append(req.Tools, llm.ToolDef{Name: n, Description: "Tool " + n,
			Parameters: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string","description":"file path"},"offset":{"type":"integer"},"limit":{"type":"integer"}},"required":["path"]}`)})
	}
	return req
}

// chatStreamBody is a typical streamed reply: reasoning, some text, one
// tool call split over several chunks, usage.
func chatStreamBody() string {
	var chunks []string
	for _, w := range strings.Fields("I should check the build file first to see the targets") {
		chunks = append(chunks, `{"id":"c1","model":"gpt-5","choices":[{"index":0,"delta":{"reasoning_content":"`+w+` "}}]}`)
	}
	for _, w := range strings.Fields("Let me look at the Makefile to answer your question") {
		chunks = append(chunks, `{"id":"c1","model":"gpt-5","choices":[{"index":0,"delta":{"content":"`+w+` "}}]}`)
	}
	chunks = append(chunks, `{"id":"c1","model":"gpt-5","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_x","type":"function","function":{"name":"read_file","arguments":""}}]}}]}`)
	for _, a := range []string{`{"path":`, `"/src/Makefile"`, `,"limit":`, `200}`} {
		chunks = append(chunks, `{"id":"c1","model":"gpt-5","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":`+string(mustJSON(a))+`}}]}}]}`)
	}
	chunks = append(chunks,
		`{"id":"c1","model":"gpt-5","choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}`,
		`{"id":"c1","model":"gpt-5","choices":[],"usage":{"prompt_tokens":9000,"completion_tokens":120,"total_tokens":9120,"prompt_tokens_details":{"cached_tokens":8000},"completion_tokens_details":{"reasoning_tokens":60}}}`)
	return sse(chunks...)
}

func responsesStreamBody() string {
	var ev []string
	for _, w := range strings.Fields("I should check the build file first to see the targets") {
		ev = append(ev, `{"type":"response.reasoning_summary_text.delta","item_id":"rs_1","summary_index":0,"delta":"`+w+` "}`)
	}
	for _, w := range strings.Fields("Let me look at the Makefile to answer your question") {
		ev = append(ev, `{"type":"response.output_text.delta","item_id":"msg_1","delta":"`+w+` "}`)
	}
	ev = append(ev, `{"type":"response.output_item.added","item":{"type":"function_call","id":"fc_x","call_id":"call_x","name":"read_file","arguments":""}}`)
	for _, a := range []string{`{"path":`, `"/src/Makefile"`, `,"limit":`, `200}`} {
		ev = append(ev, `{"type":"response.function_call_arguments.delta","item_id":"fc_x","delta":`+string(mustJSON(a))+`}`)
	}
	ev = append(ev, `{"type":"response.completed","response":{"id":"resp_1","status":"completed","model":"gpt-5","output":[`+
		`{"type":"reasoning","id":"rs_1","summary":[{"type":"summary_text","text":"I should check the build file first to see the targets"}],"encrypted_content":"`+strings.Repeat("gAAAA", 200)+`"},`+
		`{"type":"message","id":"msg_1","role":"assistant","content":[{"type":"output_text","text":"Let me look at the Makefile to answer your question"}]},`+
		`{"type":"function_call","id":"fc_x","call_id":"call_x","name":"read_file","arguments":"{\"path\":\"/src/Makefile\",\"limit\":200}"}],`+
		`"usage":{"input_tokens":9000,"input_tokens_details":{"cached_tokens":8000},"output_tokens":120,"output_tokens_details":{"reasoning_tokens":60},"total_tokens":9120}}}`)
	return rsse(ev...)
}

func benchClient(b *testing.B, c llm.Client, req *llm.Request) {
	b.Helper()
	ctx := context.Background()
	sink := func(llm.Delta) {}
	if _, err := c.Complete(ctx, req, sink); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if _, err := c.Complete(ctx, req, sink); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkChatConvert50 measures one chat_completions call's own cost:
// converting a 50-message history, encoding it, and decoding a streamed
// reply, with the network replaced by memory.
func BenchmarkChatConvert50(b *testing.B) {
	hc := &http.Client{Transport: memTransport{"text/event-stream", chatStreamBody()}}
	benchClient(b, NewChat(llm.Options{BaseURL: "https://api.example.com/v1", APIKey: "k", Provider: "deepseek", HTTPClient: hc}), history50())
}

// BenchmarkResponsesConvert50 is the same for codex_responses.
func BenchmarkResponsesConvert50(b *testing.B) {
	hc := &http.Client{Transport: memTransport{"text/event-stream", responsesStreamBody()}}
	req := history50()
	for i := range req.Messages {
		if req.Messages[i].Role == llm.RoleAssistant {
			req.Messages[i].ReasoningItems = []json.RawMessage{json.RawMessage(`{"type":"reasoning","id":"rs_0","summary":[],"encrypted_content":"` + strings.Repeat("gAAAA", 200) + `"}`)}
		}
	}
	benchClient(b, NewResponses(llm.Options{BaseURL: "https://api.example.com/v1", APIKey: "k", HTTPClient: hc}), req)
}
