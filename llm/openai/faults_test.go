package openai

import (
	"context"
	"strings"
	"testing"

	"github.com/hermes-go/hermes/llm"
	"github.com/hermes-go/hermes/llm/llmtest"
)

// fault is a raw reply and what the transport must make of it: a
// response with content and finish, or a ProviderError of errKind whose
// message says errHas.
type fault struct {
	name    string
	raw     string
	content string
	finish  llm.FinishReason
	errKind llm.ErrorKind
	errHas  string
}

func runFaults(t *testing.T, tests []fault, stream bool, client func(srv *llmtest.Server) llm.Client) {
	t.Helper()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := llmtest.NewServer(t)
			srv.Enqueue(llmtest.Reply{Raw: tt.raw})
			resp, err := client(srv).Complete(context.Background(), simpleRequest(), nil)
			if srv.Requests()[0].Stream != stream {
				t.Fatalf("request stream = %v, want %v", !stream, stream)
			}
			if tt.errKind != "" {
				pe, ok := llm.AsProviderError(err)
				if resp != nil || !ok || pe.Kind != tt.errKind || !strings.Contains(pe.Message, tt.errHas) {
					t.Fatalf("got %v, %v; want a %s error saying %q", resp, err, tt.errKind, tt.errHas)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if resp.Message.Content != tt.content || resp.FinishReason != tt.finish {
				t.Fatalf("content %q finish %q, want %q %q", resp.Message.Content, resp.FinishReason, tt.content, tt.finish)
			}
		})
	}
}

func chunk(delta, finish string) string {
	f := "null"
	if finish != "" {
		f = `"` + finish + `"`
	}
	return `{"id":"chatcmpl-1","object":"chat.completion.chunk","model":"m","choices":[{"index":0,"delta":` + delta + `,"finish_reason":` + f + `}]}`
}

// frames writes data payloads as SSE events, without a terminator.
func frames(data ...string) string {
	var b strings.Builder
	for _, d := range data {
		b.WriteString("data: " + d + "\n\n")
	}
	return b.String()
}

// A Chat Completions stream is whole when it carried a finish_reason (some
// servers leave out [DONE]); [DONE] alone does not make a finish_reason.
func TestChatStreamNeedsItsFinish(t *testing.T) {
	role, text := chunk(`{"role":"assistant","content":""}`, ""), chunk(`{"content":"The final"}`, "")
	runFaults(t, []fault{
		{name: "finish_reason without [DONE] is whole", raw: frames(role, text, chunk(`{}`, "stop")),
			content: "The final", finish: llm.FinishStop},
		{name: "neither finish_reason nor [DONE]: cut short", raw: frames(role, text),
			errKind: llm.ErrConnection, errHas: "without a finish_reason or [DONE] (2 chunks received)"},
		{name: "[DONE] without a finish_reason", raw: frames(role, text, "[DONE]"),
			errKind: llm.ErrInvalidResponse, errHas: "no finish_reason"},
		{name: "an error finish names it", raw: frames(role, text, chunk(`{}`, "error"), "[DONE]"),
			errKind: llm.ErrInvalidResponse, errHas: `unknown finish_reason "error"`},
		{name: "function_call finish without the call", raw: frames(role, text, chunk(`{}`, "function_call"), "[DONE]"),
			errKind: llm.ErrInvalidResponse, errHas: `"function_call" without a tool call`},
		{name: "tool_calls finish without a call", raw: frames(role, text, chunk(`{}`, "tool_calls"), "[DONE]"),
			errKind: llm.ErrInvalidResponse, errHas: `"tool_calls" without a tool call`},
	}, true, func(srv *llmtest.Server) llm.Client {
		return NewChat(llm.Options{BaseURL: srv.URL(), APIKey: "sk-test"})
	})
}

func TestChatBodyNeedsItsFinish(t *testing.T) {
	body := func(finish string) string {
		return `{"id":"chatcmpl-1","object":"chat.completion","model":"m","choices":[{"index":0,"message":{"role":"assistant","content":"The final"},"finish_reason":` + finish + `}]}`
	}
	whole := body(`"stop"`)
	runFaults(t, []fault{
		{name: "whole", raw: whole, content: "The final", finish: llm.FinishStop},
		{name: "JSON that stops half-way: cut short", raw: whole[:len(whole)/2],
			errKind: llm.ErrConnection, errHas: "ended before its JSON was complete"},
		{name: "an empty body: cut short", raw: " \n", errKind: llm.ErrConnection, errHas: "ended before its JSON was complete"},
		{name: "malformed JSON is invalid", raw: `{"choices": [}`, errKind: llm.ErrInvalidResponse, errHas: "malformed"},
		{name: "no finish_reason", raw: body("null"), errKind: llm.ErrInvalidResponse, errHas: "no finish_reason"},
		{name: "an unknown finish_reason names it", raw: body(`"abort"`), errKind: llm.ErrInvalidResponse, errHas: `unknown finish_reason "abort"`},
	}, false, func(srv *llmtest.Server) llm.Client {
		return NewChat(llm.Options{BaseURL: srv.URL(), APIKey: "sk-test", NoStream: true})
	})
}

// A non-streamed Responses object is an answer only once it completed
// (or stopped incomplete for a reason it names).
func TestResponsesBodyNeedsAnEndedStatus(t *testing.T) {
	body := func(status, details string) string {
		return `{"id":"resp_1","object":"response","status":` + status + `,"incomplete_details":` + details + `,"model":"m","output":[` +
			`{"type":"message","role":"assistant","status":"completed","content":[{"type":"output_text","text":"The final"}]}]}`
	}
	whole := body(`"completed"`, "null")
	runFaults(t, []fault{
		{name: "completed", raw: whole, content: "The final", finish: llm.FinishStop},
		{name: "incomplete at the output limit", raw: body(`"incomplete"`, `{"reason":"max_output_tokens"}`), content: "The final", finish: llm.FinishLength},
		{name: "JSON that stops half-way: cut short", raw: whole[:len(whole)/2], errKind: llm.ErrConnection, errHas: "ended before its JSON was complete"},
		{name: "still in progress", raw: body(`"in_progress"`, "null"), errKind: llm.ErrInvalidResponse, errHas: "still in_progress"},
		{name: "in progress without output", raw: `{"id":"resp_1","object":"response","status":"in_progress","output":[]}`, errKind: llm.ErrInvalidResponse, errHas: "in_progress"},
		{name: "no status", raw: body(`null`, "null"), errKind: llm.ErrInvalidResponse, errHas: "no status"},
		{name: "incomplete without a reason", raw: body(`"incomplete"`, "null"), errKind: llm.ErrInvalidResponse, errHas: "without a reason"},
	}, false, func(srv *llmtest.Server) llm.Client {
		return NewResponses(llm.Options{BaseURL: srv.URL(), APIKey: "sk-test", NoStream: true})
	})
}
