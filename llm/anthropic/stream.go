package anthropic

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	"github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/packages/ssestream"

	"github.com/hermes-go/hermes/llm"
)

// stream makes one streamed call with the encoded body: the SDK decodes
// the SSE events and accumulates them into a Message while the forwarder
// sends deltas to sink. It is what the SDK's Messages.NewStreaming does,
// minus encoding the params.
func (c *Client) stream(ctx context.Context, body []byte, sink func(llm.Delta)) (*anthropic.Message, error) {
	var raw *http.Response
	err := c.sdk.Post(ctx, messagesPath, body, &raw)
	s := ssestream.NewStream[anthropic.MessageStreamEventUnion](ssestream.NewDecoder(raw), err)
	defer s.Close()
	var msg anthropic.Message
	f := forwarder{sink: sink}
	for s.Next() {
		ev := s.Current()
		if err := msg.Accumulate(ev); err != nil {
			return nil, &llm.ProviderError{Kind: llm.ErrInvalidResponse, Provider: c.provider, Message: "malformed stream: " + err.Error(), Err: err}
		}
		f.event(&ev)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if err := s.Err(); err != nil {
		return nil, c.classify(err)
	}
	if !f.finished {
		return nil, &llm.ProviderError{Kind: llm.ErrConnection, Provider: c.provider,
			Message: fmt.Sprintf("stream ended before the message was complete (%d content blocks received)", len(msg.Content))}
	}
	f.restoreArgs(&msg)
	return &msg, nil
}

// restoreArgs puts back tool_use input as it streamed where it is not
// valid JSON: the SDK's accumulator replaces such input with {}, which
// would run the tool with no arguments instead of telling the model that
// its arguments did not parse.
func (f *forwarder) restoreArgs(m *anthropic.Message) {
	for i, raw := range f.args {
		if i < int64(len(m.Content)) && m.Content[i].Type == "tool_use" && raw.Len() > 0 && !json.Valid([]byte(raw.String())) {
			m.Content[i].Input = json.RawMessage(raw.String())
		}
	}
}

// forwarder turns stream events into Deltas. Text streams only until the
// first tool_use block starts (what follows belongs with the tool calls);
// reasoning streams throughout; each tool_use announces itself once.
// Separators match how normalise joins several blocks of one kind.
type forwarder struct {
	sink     func(llm.Delta)
	toolSeen bool
	tools    int
	finished bool

	textSent, textSep           bool
	reasoningSent, reasoningSep bool

	args map[int64]*strings.Builder // by content block index: a tool_use's input as it streamed
}

func (f *forwarder) event(ev *anthropic.MessageStreamEventUnion) {
	switch ev.Type {
	case "content_block_start":
		switch ev.ContentBlock.Type {
		case "tool_use":
			f.toolSeen = true
			f.emit(llm.Delta{Kind: llm.DeltaToolCall, ToolName: ev.ContentBlock.Name, ToolIndex: f.tools})
			f.tools++
			if f.args == nil {
				f.args = map[int64]*strings.Builder{}
			}
			f.args[ev.Index] = &strings.Builder{}
		case "text":
			f.textSep = f.textSent
			f.text(ev.ContentBlock.Text)
		case "thinking":
			f.reasoningSep = f.reasoningSent
			f.reasoning(ev.ContentBlock.Thinking)
		}
	case "content_block_delta":
		switch ev.Delta.Type {
		case "text_delta":
			f.text(ev.Delta.Text)
		case "thinking_delta":
			f.reasoning(ev.Delta.Thinking)
		case "input_json_delta":
			if b := f.args[ev.Index]; b != nil {
				b.WriteString(ev.Delta.PartialJSON)
			}
		}
	case "message_delta":
		if ev.Delta.StopReason != "" {
			f.finished = true
		}
	case "message_stop":
		f.finished = true
	}
}

func (f *forwarder) text(s string) {
	if s == "" || f.toolSeen {
		return
	}
	if f.textSep {
		f.emit(llm.Delta{Kind: llm.DeltaText, Text: textJoiner})
		f.textSep = false
	}
	f.textSent = true
	f.emit(llm.Delta{Kind: llm.DeltaText, Text: s})
}

func (f *forwarder) reasoning(s string) {
	if s == "" {
		return
	}
	if f.reasoningSep {
		f.emit(llm.Delta{Kind: llm.DeltaReasoning, Text: reasoningJoiner})
		f.reasoningSep = false
	}
	f.reasoningSent = true
	f.emit(llm.Delta{Kind: llm.DeltaReasoning, Text: s})
}

func (f *forwarder) emit(d llm.Delta) {
	if f.sink != nil {
		f.sink(d)
	}
}
