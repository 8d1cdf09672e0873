package openai

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/hermes-go/hermes/llm"
)

func TestChatStreamAssemblesToolCalls(t *testing.T) {
	tests := []struct {
		name   string
		chunks []string
		want   []llm.ToolCall
		finish llm.FinishReason
	}{
		{
			name: "arguments accumulate per index",
			chunks: []string{
				`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_a","type":"function","function":{"name":"read_file","arguments":""}}]}}]}`,
				`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\"path\":"}}]}}]}`,
				`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":1,"id":"call_b","type":"function","function":{"name":"list_dir","arguments":"{}"}}]}}]}`,
				`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"\"/tmp/x\"}"}}]}}]}`,
				`{"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}`,
			},
			want: []llm.ToolCall{
				{ID: "call_a", Name: "read_file", Arguments: `{"path":"/tmp/x"}`},
				{ID: "call_b", Name: "list_dir", Arguments: `{}`},
			},
			finish: llm.FinishToolCalls,
		},
		{
			name: "a new id at a reused index opens a new call",
			chunks: []string{
				`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_1","function":{"name":"add","arguments":"{\"a\":1}"}}]}}]}`,
				`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_2","function":{"name":"mul","arguments":"{\"b\":2}"}}]}}]}`,
				`{"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}`,
			},
			want: []llm.ToolCall{
				{ID: "call_1", Name: "add", Arguments: `{"a":1}`},
				{ID: "call_2", Name: "mul", Arguments: `{"b":2}`},
			},
			finish: llm.FinishToolCalls,
		},
		{
			name: "a resent name is assigned, not concatenated",
			chunks: []string{
				`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_1","function":{"name":"terminal","arguments":"{\"cmd\":"}}]}}]}`,
				`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_1","function":{"name":"terminal","arguments":"\"ls\"}"}}]}}]}`,
				`{"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}`,
			},
			want:   []llm.ToolCall{{ID: "call_1", Name: "terminal", Arguments: `{"cmd":"ls"}`}},
			finish: llm.FinishToolCalls,
		},
		{
			name: "tool calls reported with finish stop still end in tool_calls",
			chunks: []string{
				`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_1","function":{"name":"todo","arguments":"{}"}}]}}]}`,
				`{"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}`,
			},
			want:   []llm.ToolCall{{ID: "call_1", Name: "todo", Arguments: `{}`}},
			finish: llm.FinishToolCalls,
		},
		{
			// Only the finish reason says the output limit cut a call: these
			// arguments reach the tool, whose error the model can correct.
			name: "arguments that do not parse are kept and the finish reason stands",
			chunks: []string{
				`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_1","function":{"name":"write_file","arguments":"{\"path\":\"/tmp/a\",\"content\":\"hel"}}]}}]}`,
				`{"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}`,
			},
			want:   []llm.ToolCall{{ID: "call_1", Name: "write_file", Arguments: `{"path":"/tmp/a","content":"hel`}},
			finish: llm.FinishToolCalls,
		},
		{
			name: "arguments cut by the output limit end in length",
			chunks: []string{
				`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_1","function":{"name":"write_file","arguments":"{\"path\":\"/tmp/a\",\"content\":\"hel"}}]}}]}`,
				`{"choices":[{"index":0,"delta":{},"finish_reason":"length"}]}`,
			},
			want:   []llm.ToolCall{{ID: "call_1", Name: "write_file", Arguments: `{"path":"/tmp/a","content":"hel`}},
			finish: llm.FinishLength,
		},
		{
			name: "a legacy function_call is a tool call with an id made up",
			chunks: []string{
				`{"choices":[{"index":0,"delta":{"role":"assistant","content":null,"function_call":{"name":"read_file","arguments":""}}}]}`,
				`{"choices":[{"index":0,"delta":{"function_call":{"arguments":"{\"path\":"}}}]}`,
				`{"choices":[{"index":0,"delta":{"function_call":{"arguments":"\"/tmp/x\"}"}}}]}`,
				`{"choices":[{"index":0,"delta":{},"finish_reason":"function_call"}]}`,
			},
			want:   []llm.ToolCall{{Name: "read_file", Arguments: `{"path":"/tmp/x"}`}},
			finish: llm.FinishToolCalls,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFakeProvider(t, serveSSE(sse(tt.chunks...)))
			resp, col, err := complete(t, chatClient(f, llm.Options{}), simpleRequest())
			if err != nil {
				t.Fatal(err)
			}
			got := resp.Message.ToolCalls
			if len(got) != len(tt.want) {
				t.Fatalf("calls %+v, want %+v", got, tt.want)
			}
			for i := range got {
				want := tt.want[i]
				if want.ID == "" && strings.HasPrefix(got[i].ID, "call_") {
					want.ID = got[i].ID // made up by the transport
				}
				if got[i] != want {
					t.Errorf("call %d = %+v, want %+v", i, got[i], want)
				}
			}
			if resp.FinishReason != tt.finish || resp.Message.FinishReason != tt.finish {
				t.Errorf("finish %q, want %q", resp.FinishReason, tt.finish)
			}
			if len(col.tools) != len(tt.want) {
				t.Fatalf("announced %d calls, want one per call: %+v", len(col.tools), col.tools)
			}
			for i, d := range col.tools {
				if d.ToolName != tt.want[i].Name || d.ToolIndex != i {
					t.Errorf("announcement %d = %+v", i, d)
				}
			}
		})
	}
}

func TestChatStreamUsage(t *testing.T) {
	want := llm.Usage{InputTokens: 100, OutputTokens: 20, CacheReadTokens: 64, ReasoningTokens: 7, TotalTokens: 120}
	usage := `{"prompt_tokens":100,"completion_tokens":20,"total_tokens":120,"prompt_tokens_details":{"cached_tokens":64},"completion_tokens_details":{"reasoning_tokens":7}}`
	tests := []struct {
		name   string
		chunks []string
	}{
		{"in a final chunk without choices", []string{
			`{"choices":[{"index":0,"delta":{"content":"ok"}}]}`,
			`{"choices":[{"index":0,"delta":{},"finish_reason":"stop"}],"usage":null}`,
			`{"choices":[],"usage":` + usage + `}`,
		}},
		{"in the finish chunk", []string{
			`{"choices":[{"index":0,"delta":{"content":"ok"}}]}`,
			`{"choices":[{"index":0,"delta":{},"finish_reason":"stop"}],"usage":` + usage + `}`,
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFakeProvider(t, serveSSE(sse(tt.chunks...)))
			resp, _, err := complete(t, chatClient(f, llm.Options{}), simpleRequest())
			if err != nil {
				t.Fatal(err)
			}
			if resp.Usage != want {
				t.Errorf("usage %+v, want %+v", resp.Usage, want)
			}
			if resp.Message.Content != "ok" || resp.FinishReason != llm.FinishStop {
				t.Errorf("content %q finish %q", resp.Message.Content, resp.FinishReason)
			}
		})
	}
}

func TestChatStreamToleratesCommentLines(t *testing.T) {
	body := ": OPENROUTER PROCESSING\n\n: OPENROUTER PROCESSING\n\n" +
		sse(`{"choices":[{"index":0,"delta":{"content":"Olá"}}]}`,
			`{"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}`)
	f := newFakeProvider(t, serveSSE(body))
	resp, col, err := complete(t, chatClient(f, llm.Options{Provider: "openrouter"}), simpleRequest())
	if err != nil {
		t.Fatal(err)
	}
	if resp.Message.Content != "Olá" || col.text.String() != "Olá" {
		t.Errorf("content %q, streamed %q", resp.Message.Content, col.text.String())
	}
}

func TestChatStreamInlineThinkIsReasoning(t *testing.T) {
	f := newFakeProvider(t, serveSSE(sse(
		`{"choices":[{"index":0,"delta":{"content":"<thi"}}]}`,
		`{"choices":[{"index":0,"delta":{"content":"nk>check the "}}]}`,
		`{"choices":[{"index":0,"delta":{"content":"date</th"}}]}`,
		`{"choices":[{"index":0,"delta":{"content":"ink>It is "}}]}`,
		`{"choices":[{"index":0,"delta":{"content":"Monday. a<b"}}]}`,
		`{"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}`,
	)))
	resp, col, err := complete(t, chatClient(f, llm.Options{}), simpleRequest())
	if err != nil {
		t.Fatal(err)
	}
	if resp.Message.Content != "It is Monday. a<b" {
		t.Errorf("content %q", resp.Message.Content)
	}
	if resp.Message.Reasoning != "check the date" {
		t.Errorf("reasoning %q", resp.Message.Reasoning)
	}
	if col.text.String() != "It is Monday. a<b" {
		t.Errorf("sink saw text %q", col.text.String())
	}
	if col.reasoning.String() != "check the date" {
		t.Errorf("sink saw reasoning %q", col.reasoning.String())
	}
}

func TestChatStreamReasoningSources(t *testing.T) {
	tests := []struct {
		name          string
		chunks        []string
		wantReasoning string
		wantStreamed  string
		wantDetails   []string
	}{
		{
			name: "reasoning_content (DeepSeek, Kimi, GLM)",
			chunks: []string{
				`{"choices":[{"index":0,"delta":{"reasoning_content":"think "}}]}`,
				`{"choices":[{"index":0,"delta":{"reasoning_content":"hard"}}]}`,
				`{"choices":[{"index":0,"delta":{"content":"done"},"finish_reason":"stop"}]}`,
			},
			wantReasoning: "think hard", wantStreamed: "think hard",
		},
		{
			name: "reasoning and reasoning_details carrying the same text (OpenRouter)",
			chunks: []string{
				`{"choices":[{"index":0,"delta":{"reasoning":"Step one","reasoning_details":[{"type":"reasoning.text","text":"Step one","index":0,"format":"anthropic-claude-v1"}]}}]}`,
				`{"choices":[{"index":0,"delta":{"reasoning":", two.","reasoning_details":[{"type":"reasoning.text","text":", two.","index":0}]}}]}`,
				`{"choices":[{"index":0,"delta":{"reasoning_details":[{"type":"reasoning.text","signature":"sig==","index":0}]}}]}`,
				`{"choices":[{"index":0,"delta":{"content":"answer"},"finish_reason":"stop"}]}`,
			},
			wantReasoning: "Step one, two.", wantStreamed: "Step one, two.",
			wantDetails: []string{`{"format":"anthropic-claude-v1","index":0,"signature":"sig==","text":"Step one, two.","type":"reasoning.text"}`},
		},
		{
			name: "reasoning_details summary only",
			chunks: []string{
				`{"choices":[{"index":0,"delta":{"reasoning_details":[{"type":"reasoning.summary","summary":"Plan: reply.","index":0},{"type":"reasoning.encrypted","data":"abc","index":1}]}}]}`,
				`{"choices":[{"index":0,"delta":{"content":"hi"},"finish_reason":"stop"}]}`,
			},
			wantReasoning: "Plan: reply.", wantStreamed: "Plan: reply.",
			wantDetails: []string{`{"index":0,"summary":"Plan: reply.","type":"reasoning.summary"}`, `{"data":"abc","index":1,"type":"reasoning.encrypted"}`},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFakeProvider(t, serveSSE(sse(tt.chunks...)))
			resp, col, err := complete(t, chatClient(f, llm.Options{}), simpleRequest())
			if err != nil {
				t.Fatal(err)
			}
			if resp.Message.Reasoning != tt.wantReasoning {
				t.Errorf("reasoning %q, want %q", resp.Message.Reasoning, tt.wantReasoning)
			}
			if col.reasoning.String() != tt.wantStreamed {
				t.Errorf("streamed reasoning %q, want %q", col.reasoning.String(), tt.wantStreamed)
			}
			if strings.Contains(resp.Message.Content, resp.Message.Reasoning) {
				t.Errorf("reasoning leaked into content %q", resp.Message.Content)
			}
			if len(resp.Message.ReasoningDetails) != len(tt.wantDetails) {
				t.Fatalf("details %s, want %v", resp.Message.ReasoningDetails, tt.wantDetails)
			}
			for i, d := range tt.wantDetails {
				if !jsonEqual(string(resp.Message.ReasoningDetails[i]), d) {
					t.Errorf("detail %d = %s, want %s", i, resp.Message.ReasoningDetails[i], d)
				}
			}
		})
	}
}

func TestChatStreamTextStopsStreamingAtFirstToolCall(t *testing.T) {
	f := newFakeProvider(t, serveSSE(sse(
		`{"choices":[{"index":0,"delta":{"content":"Let me look."}}]}`,
		`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_1","function":{"name":"search","arguments":"{}"}}]}}]}`,
		`{"choices":[{"index":0,"delta":{"content":" (narration)"}}]}`,
		`{"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}`,
	)))
	resp, col, err := complete(t, chatClient(f, llm.Options{}), simpleRequest())
	if err != nil {
		t.Fatal(err)
	}
	if col.text.String() != "Let me look." {
		t.Errorf("sink saw %q; text after the first tool call must not stream", col.text.String())
	}
	if resp.Message.Content != "Let me look. (narration)" {
		t.Errorf("content %q keeps all text", resp.Message.Content)
	}
}

func TestChatRefusalIsContentFilter(t *testing.T) {
	tests := []struct {
		name, body string
		stream     bool
	}{
		{"streamed refusal", sse(
			`{"choices":[{"index":0,"delta":{"refusal":"I can't help "}}]}`,
			`{"choices":[{"index":0,"delta":{"refusal":"with that."},"finish_reason":"stop"}]}`), true},
		{"finish content_filter", sse(
			`{"choices":[{"index":0,"delta":{"content":"partial"},"finish_reason":"content_filter"}]}`), true},
		{"non-streamed refusal", `{"id":"x","model":"m","choices":[{"index":0,"finish_reason":"stop","message":{"role":"assistant","content":null,"refusal":"I can't help with that."}}]}`, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := serveJSON(tt.body)
			if tt.stream {
				h = serveSSE(tt.body)
			}
			f := newFakeProvider(t, h)
			resp, _, err := complete(t, chatClient(f, llm.Options{NoStream: !tt.stream}), simpleRequest())
			if err != nil {
				t.Fatal(err)
			}
			if resp.FinishReason != llm.FinishContentFilter {
				t.Errorf("finish %q, want content_filter", resp.FinishReason)
			}
			if strings.Contains(tt.body, "refusal") && resp.Refusal != "I can't help with that." {
				t.Errorf("refusal %q", resp.Refusal)
			}
		})
	}
}

func TestChatNoChoicesIsInvalidResponse(t *testing.T) {
	tests := []struct {
		name   string
		h      http.HandlerFunc
		stream bool
	}{
		{"stream with only a usage chunk", serveSSE(sse(`{"choices":[],"usage":{"prompt_tokens":3,"completion_tokens":0,"total_tokens":3}}`)), true},
		{"empty stream", serveSSE("data: [DONE]\n\n"), true},
		{"non-streamed empty choices", serveJSON(`{"id":"x","choices":[],"usage":{"prompt_tokens":3}}`), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFakeProvider(t, tt.h)
			resp, _, err := complete(t, chatClient(f, llm.Options{NoStream: !tt.stream}), simpleRequest())
			pe, ok := llm.AsProviderError(err)
			if !ok || pe.Kind != llm.ErrInvalidResponse || resp != nil {
				t.Fatalf("got %v, %v; want an invalid_response ProviderError", resp, err)
			}
			if !pe.Retryable() {
				t.Error("an invalid response should be retryable")
			}
		})
	}
}

func TestChatMidStreamErrorIsClassified(t *testing.T) {
	f := newFakeProvider(t, serveSSE(sse(
		`{"choices":[{"index":0,"delta":{"content":"par"}}]}`,
		`{"error":{"code":429,"message":"Rate limit exceeded upstream"}}`,
	)))
	_, _, err := complete(t, chatClient(f, llm.Options{Provider: "openrouter"}), simpleRequest())
	pe, ok := llm.AsProviderError(err)
	if !ok || pe.Kind != llm.ErrRateLimit {
		t.Fatalf("err %v, want rate_limit ProviderError", err)
	}
	if !strings.Contains(pe.Message, "Rate limit exceeded upstream") {
		t.Errorf("message %q lost the provider's text", pe.Message)
	}
}

func TestCancelMidStreamReturnsPromptly(t *testing.T) {
	release := make(chan struct{})
	t.Cleanup(func() { close(release) })
	handlers := map[string]http.HandlerFunc{
		"chat": func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/event-stream")
			io.WriteString(w, "data: "+`{"choices":[{"index":0,"delta":{"content":"first"}}]}`+"\n\n")
			w.(http.Flusher).Flush()
			select { // a provider that stalls after the first chunk
			case <-release:
			case <-r.Context().Done():
			}
		},
		"responses": func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/event-stream")
			io.WriteString(w, "event: response.output_text.delta\ndata: "+`{"type":"response.output_text.delta","item_id":"msg_1","delta":"first"}`+"\n\n")
			w.(http.Flusher).Flush()
			select {
			case <-release:
			case <-r.Context().Done():
			}
		},
	}
	for name, h := range handlers {
		t.Run(name, func(t *testing.T) {
			f := newFakeProvider(t, h)
			var c llm.Client = chatClient(f, llm.Options{})
			if name == "responses" {
				c = NewResponses(llm.Options{BaseURL: f.URL + "/v1"})
			}
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			type result struct {
				resp *llm.Response
				err  error
			}
			done := make(chan result, 1)
			go func() {
				resp, err := c.Complete(ctx, simpleRequest(), func(d llm.Delta) { cancel() })
				done <- result{resp, err}
			}()
			select {
			case r := <-done:
				if !errors.Is(r.err, context.Canceled) || r.resp != nil {
					t.Fatalf("got %v, %v; want no response and context.Canceled", r.resp, r.err)
				}
			case <-time.After(10 * time.Second): // a fuse, not a wait: the call must return on cancel
				t.Fatal("Complete did not return after cancel")
			}
		})
	}
}

func TestChatStreamToleratesOddFieldTypes(t *testing.T) {
	f := newFakeProvider(t, serveSSE(sse(
		`{"choices":[{"index":0,"delta":{"content":[{"type":"text","text":"list "}]}}]}`,
		`{"choices":[{"index":0,"delta":{"content":"text"},"finish_reason":"stop"}],"usage":{"prompt_tokens":10,"completion_tokens":2,"total_tokens":12,"queue_time":"fast","prompt_tokens_details":{"cached_tokens":1.5}}}`,
	)))
	resp, _, err := complete(t, chatClient(f, llm.Options{}), simpleRequest())
	if err != nil {
		t.Fatal(err)
	}
	if resp.Message.Content != "list text" {
		t.Errorf("content %q", resp.Message.Content)
	}
	if resp.Usage.InputTokens != 10 || resp.Usage.OutputTokens != 2 {
		t.Errorf("usage %+v lost the well-typed fields", resp.Usage)
	}
}

func TestChatStreamMalformedChunkIsInvalidResponse(t *testing.T) {
	f := newFakeProvider(t, serveSSE(sse(`{"choices":[{"index":0,"delta":{"content":"x"}`)))
	_, _, err := complete(t, chatClient(f, llm.Options{}), simpleRequest())
	if pe, ok := llm.AsProviderError(err); !ok || pe.Kind != llm.ErrInvalidResponse {
		t.Fatalf("err %v, want invalid_response", err)
	}
}
