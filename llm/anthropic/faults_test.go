package anthropic

import (
	"context"
	"strings"
	"testing"

	"github.com/hermes-go/hermes/llm"
	"github.com/hermes-go/hermes/llm/llmtest"
)

// A message is whole when it says why it stopped: a stream needs its
// stop_reason (message_delta) or at least its message_stop, and the
// reason itself must be one this transport handles; a body must be whole
// JSON with a stop_reason.
func TestMessageNeedsItsStopReason(t *testing.T) {
	start := msgStart(`{"input_tokens":10,"output_tokens":1}`)
	text := []string{start, blockStart(0, `{"type":"text","text":""}`), blockDelta(0, `{"type":"text_delta","text":"The final"}`), blockStop(0)}
	events := func(tail ...string) string { return sse(append(append([]string{}, text...), tail...)...) }
	body := func(stop string) string {
		return `{"id":"msg_1","type":"message","role":"assistant","model":"claude-test","content":[{"type":"text","text":"The final"}],"stop_reason":` + stop + `,"usage":{"input_tokens":10,"output_tokens":3}}`
	}
	whole := body(`"end_turn"`)
	for _, tt := range []struct {
		name     string
		noStream bool
		raw      string
		errKind  llm.ErrorKind
		errHas   string
	}{
		{name: "stop_reason without message_stop is whole", raw: events(msgDelta("end_turn", `{"output_tokens":3}`))},
		{name: "neither: cut short", raw: events(), errKind: llm.ErrConnection, errHas: "stream ended before the message was complete"},
		{name: "message_stop without a stop_reason", raw: events(msgStop), errKind: llm.ErrInvalidResponse, errHas: "no stop_reason"},
		{name: "an unknown stop_reason names it", raw: events(msgDelta("overloaded_mid_turn", `{"output_tokens":3}`), msgStop),
			errKind: llm.ErrInvalidResponse, errHas: `"overloaded_mid_turn"`},
		{name: "whole body", noStream: true, raw: whole},
		{name: "body that stops half-way: cut short", noStream: true, raw: whole[:len(whole)/2], errKind: llm.ErrConnection},
		{name: "body without a stop_reason", noStream: true, raw: body("null"), errKind: llm.ErrInvalidResponse, errHas: "no stop_reason"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			srv := llmtest.NewServer(t)
			srv.Enqueue(llmtest.Reply{Raw: tt.raw})
			c := New(llm.Options{BaseURL: srv.AnthropicURL(), APIKey: "sk-ant-test", NoStream: tt.noStream})
			resp, err := c.Complete(context.Background(), &llm.Request{Model: "claude-test", Messages: []llm.Message{llm.User("hi")}}, nil)
			if tt.errKind == "" {
				if err != nil || resp.Message.Content != "The final" || resp.FinishReason != llm.FinishStop {
					t.Fatalf("got %+v, %v; want the whole answer", resp, err)
				}
				return
			}
			pe, ok := llm.AsProviderError(err)
			if resp != nil || !ok || pe.Kind != tt.errKind || !strings.Contains(pe.Message, tt.errHas) {
				t.Fatalf("got %v, %v; want a %s error saying %q", resp, err, tt.errKind, tt.errHas)
			}
		})
	}
}

// A tool_use input that does not parse reaches the caller as it streamed,
// not as the {} the SDK's accumulator puts in its place.
func TestStreamedInvalidToolInputIsKeptAsSent(t *testing.T) {
	srv := llmtest.NewServer(t)
	srv.Enqueue(llmtest.Reply{ToolCalls: []llm.ToolCall{{Name: "write_file", Arguments: `{"path":"/tmp/a","content":"hel`}}})
	c := New(llm.Options{BaseURL: srv.AnthropicURL(), APIKey: "sk-ant-test"})
	resp, err := c.Complete(context.Background(), &llm.Request{Model: "claude-test", Messages: []llm.Message{llm.User("hi")}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if calls := resp.Message.ToolCalls; len(calls) != 1 || calls[0].Arguments != `{"path":"/tmp/a","content":"hel` || resp.FinishReason != llm.FinishToolCalls {
		t.Fatalf("calls %+v finish %q", calls, resp.FinishReason)
	}
}
