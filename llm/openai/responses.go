package openai

import (
	"context"
	"errors"
	"fmt"

	"github.com/hermes-go/hermes/llm"
)

const responsesPath = "responses"

// Responses is the codex_responses transport: the OpenAI Responses API
// (OpenAI, Azure OpenAI, Codex), used statelessly. It is safe for
// concurrent use.
type Responses struct {
	f      flavor
	stream bool
	args   argsMemo
	items  itemMemo
	http   *poster
}

var _ llm.Client = (*Responses)(nil)

// NewResponses returns a codex_responses client for opts.
func NewResponses(opts llm.Options) *Responses {
	f := newFlavor(opts)
	return &Responses{
		f:      f,
		stream: !opts.NoStream,
		http:   newPoster(opts, f),
	}
}

// Complete performs one call, streaming unless the client was built with
// NoStream. See llm.Client.
func (r *Responses) Complete(ctx context.Context, req *llm.Request, sink func(llm.Delta)) (*llm.Response, error) {
	if req == nil {
		return nil, errors.New("openai: nil request")
	}
	if sink == nil {
		sink = func(llm.Delta) {}
	}
	body, err := r.encodeResponses(req, r.stream)
	if err != nil {
		return nil, err
	}
	if !r.stream {
		raw, err := r.http.postJSON(ctx, responsesPath, body)
		if err != nil {
			return nil, err
		}
		var res wireResponse
		if err := decodeBody(r.f.name, raw, &res); err != nil {
			return nil, err
		}
		out, err := fromResponse(r.f.name, &res, nil)
		if err != nil {
			return nil, err
		}
		replay(out, sink)
		return out, nil
	}

	acc := responsesStream{sink: sink}
	_, err = postSSE(ctx, r.http, responsesPath, body, func(data []byte) error {
		var ev responsesEvent
		if err := decodeEvent(r.f.name, data, &ev); err != nil {
			return err
		}
		if ev.Type == "error" || isError(ev.Error) {
			pe := streamError(r.f.name, data)
			if ev.Message != "" {
				pe.Message = ev.Message
			}
			return pe
		}
		return acc.event(r.f.name, &ev)
	})
	if err != nil {
		return nil, err
	}
	if acc.final == nil {
		return nil, cutShort(r.f.name, fmt.Sprintf("stream ended before its final response event (%d events received)", acc.events))
	}
	return fromResponse(r.f.name, acc.final, &acc)
}

// replay sends a whole response to the sink as deltas, so a non-streamed
// call looks the same to observers as a streamed one.
func replay(r *llm.Response, sink func(llm.Delta)) {
	if r.Message.Reasoning != "" {
		sink(llm.Delta{Kind: llm.DeltaReasoning, Text: r.Message.Reasoning})
	}
	if r.Message.Content != "" {
		sink(llm.Delta{Kind: llm.DeltaText, Text: r.Message.Content})
	}
	for i, tc := range r.Message.ToolCalls {
		sink(llm.Delta{Kind: llm.DeltaToolCall, ToolName: tc.Name, ToolIndex: i})
	}
}
