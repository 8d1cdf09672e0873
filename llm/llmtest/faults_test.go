package llmtest_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/hermes-go/hermes/llm"
	"github.com/hermes-go/hermes/llm/llmtest"
)

// postMinimal sends a minimal valid request in format, streamed or not.
func postMinimal(t *testing.T, srv *llmtest.Server, format llm.APIMode, stream bool) *http.Response {
	s := strconv.FormatBool(stream)
	switch format {
	case llm.ChatCompletions:
		return post(t, srv.URL()+"/chat/completions", `{"model":"m","messages":[{"role":"user","content":"hi"}],"stream":`+s+`}`)
	case llm.CodexResponses:
		return post(t, srv.URL()+"/responses", `{"model":"m","input":[{"role":"user","content":"hi"}],"stream":`+s+`}`)
	}
	return post(t, srv.AnthropicURL()+"/v1/messages", `{"model":"m","max_tokens":5,"messages":[{"role":"user","content":"hi"}],"stream":`+s+`}`,
		"anthropic-version", "2023-06-01")
}

// EndAfter ends the response cleanly, short of its finish and terminator.
func TestEndAfterClosesTheReplyWithoutItsEnd(t *testing.T) {
	ends := perFormat{"[DONE]", "response.completed", "message_stop"}
	for i, f := range formats {
		t.Run(f.name+"/streamed", func(t *testing.T) {
			srv := llmtest.NewServer(t)
			srv.Enqueue(llmtest.Reply{Text: "The final answer is 42.", EndAfter: 3})
			got := readAll(t, postMinimal(t, srv, f.format, true)) // a clean end: no read error
			if n := strings.Count(got, "data: "); n != 3 {
				t.Fatalf("%d events, want 3:\n%s", n, got)
			}
			if strings.Contains(got, ends[i]) || strings.Contains(got, "finish_reason\":\"stop") || strings.Contains(got, "stop_reason\":\"end_turn") {
				t.Fatalf("the stream carries its end:\n%s", got)
			}
		})
		t.Run(f.name+"/not streamed", func(t *testing.T) {
			srv := llmtest.NewServer(t)
			srv.Enqueue(llmtest.Reply{Text: "The final answer is 42.", EndAfter: 1})
			resp := postMinimal(t, srv, f.format, false)
			got := readAll(t, resp)
			if strconv.Itoa(len(got)) != resp.Header.Get("Content-Length") || json.Valid([]byte(got)) || !strings.HasPrefix(strings.TrimSpace(got), "{") {
				t.Fatalf("body of %d bytes (Content-Length %s), want a whole response holding half a JSON object:\n%s", len(got), resp.Header.Get("Content-Length"), got)
			}
		})
	}
}

func TestLegacyFunctionCallIsSentAsAFunctionCall(t *testing.T) {
	reply := llmtest.Reply{ToolCalls: []llm.ToolCall{{Name: "weather", Arguments: `{"city":"Florence"}`}, {Name: "ignored"}}, LegacyFunctionCall: true}
	t.Run("not streamed", func(t *testing.T) {
		srv := llmtest.NewServer(t)
		srv.Enqueue(reply)
		c := openaiClient(srv)
		resp, err := c.Chat.Completions.New(t.Context(), chatParams())
		if err != nil {
			t.Fatal(err)
		}
		ch := resp.Choices[0]
		fc := ch.Message.FunctionCall
		if ch.FinishReason != "function_call" || fc.Name != "weather" || fc.Arguments != `{"city":"Florence"}` || len(ch.Message.ToolCalls) != 0 {
			t.Fatalf("choice %+v", ch)
		}
	})
	t.Run("streamed", func(t *testing.T) {
		srv := llmtest.NewServer(t)
		srv.Enqueue(reply)
		c := openaiClient(srv)
		s := c.Chat.Completions.NewStreaming(t.Context(), chatParams())
		defer s.Close()
		var name, args, finish strings.Builder
		for s.Next() {
			for _, ch := range s.Current().Choices {
				name.WriteString(ch.Delta.FunctionCall.Name)
				args.WriteString(ch.Delta.FunctionCall.Arguments)
				finish.WriteString(ch.FinishReason)
				if len(ch.Delta.ToolCalls) > 0 {
					t.Fatalf("tool_calls sent with a legacy function_call: %+v", ch.Delta)
				}
			}
		}
		if err := s.Err(); err != nil {
			t.Fatal(err)
		}
		if name.String() != "weather" || args.String() != `{"city":"Florence"}` || finish.String() != "function_call" {
			t.Fatalf("function_call %q(%s), finish %q", name.String(), args.String(), finish.String())
		}
	})
}

func TestRawIsSentAsItIs(t *testing.T) {
	for _, stream := range []bool{false, true} {
		t.Run(fmt.Sprintf("stream=%v", stream), func(t *testing.T) {
			raw, ctype := `{"choices":[], "odd": true`, "application/json"
			if stream {
				raw, ctype = "data: {\"choices\":[]}\n\n: a comment\n\n", "text/event-stream"
			}
			srv := llmtest.NewServer(t)
			srv.Enqueue(llmtest.Reply{Raw: raw, Text: "ignored"}.WithHeader("X-Ratelimit-Reset", "1"))
			resp := postMinimal(t, srv, llm.ChatCompletions, stream)
			if got := readAll(t, resp); got != raw || resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Content-Type"), ctype) || resp.Header.Get("X-Ratelimit-Reset") != "1" {
				t.Fatalf("status %d, %s, body %q", resp.StatusCode, resp.Header.Get("Content-Type"), got)
			}
		})
	}
}

func TestClientFaultsFailAsATransportWould(t *testing.T) {
	tests := []struct {
		name     string
		reply    llmtest.Reply
		kind     llm.ErrorKind
		msg      string
		streamed string
	}{
		{"ended without its finish", llmtest.Reply{Text: "The final answer", EndAfter: 2}, llm.ErrConnection, "ended before its finish", "The final"},
		{"unknown finish reason", llmtest.Reply{Text: "The final", FinishReason: "abort"}, llm.ErrInvalidResponse, `"abort"`, "The final"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := llmtest.NewClient(t)
			c.Enqueue(tt.reply)
			resp, got, err := complete(t.Context(), c, hello())
			if pe, ok := llm.AsProviderError(err); !ok || resp != nil || pe.Kind != tt.kind || !strings.Contains(pe.Message, tt.msg) {
				t.Fatalf("got %+v, %v; want a %s error saying %q", resp, err, tt.kind, tt.msg)
			}
			if got.Text != tt.streamed {
				t.Fatalf("streamed %q before failing, want %q", got.Text, tt.streamed)
			}
		})
	}
}

func TestClientLegacyFunctionCallIsOneCall(t *testing.T) {
	c := llmtest.NewClient(t)
	c.Enqueue(llmtest.Reply{ToolCalls: []llm.ToolCall{{Name: "weather", Arguments: `{"city":"Florence"}`}, {Name: "ignored"}}, LegacyFunctionCall: true})
	resp, err := c.Complete(t.Context(), hello(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if calls := resp.Message.ToolCalls; len(calls) != 1 || calls[0].Name != "weather" || calls[0].ID == "" || resp.FinishReason != llm.FinishToolCalls {
		t.Fatalf("response %+v", resp)
	}
}

func TestClientCannotPlayRawAndSaysSoAtCleanup(t *testing.T) {
	tb := &fakeTB{TB: t}
	c := llmtest.NewClient(tb)
	c.Enqueue(llmtest.Reply{Raw: `{"choices":[]}`})
	if _, err := c.Complete(t.Context(), hello(), nil); err == nil {
		t.Fatal("a Raw reply was played without a wire format")
	}
	tb.finish()
	if len(tb.errs) != 1 || !strings.Contains(tb.errs[0], "Raw reply needs a wire format") {
		t.Fatalf("cleanup reported %q", tb.errs)
	}
}
