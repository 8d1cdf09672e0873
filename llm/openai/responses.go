package openai

import (
	"context"
	"errors"

	"github.com/openai/openai-go/v3/responses"

	"github.com/hermes-go/hermes/llm"
)

// Responses is the codex_responses transport: the OpenAI Responses API
// (OpenAI, Azure OpenAI, Codex), used statelessly. It is safe for
// concurrent use.
type Responses struct {
	f      flavor
	stream bool
	args   argsMemo
	svc    responses.ResponseService
}

var _ llm.Client = (*Responses)(nil)

// NewResponses returns a codex_responses client for opts.
func NewResponses(opts llm.Options) *Responses {
	f := newFlavor(opts)
	return &Responses{
		f:      f,
		stream: !opts.NoStream,
		svc:    responses.NewResponseService(requestOptions(opts, f)...),
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
	params, err := r.responsesParams(req)
	if err != nil {
		return nil, err
	}
	if !r.stream {
		res, err := r.svc.New(ctx, params)
		if err != nil {
			return nil, mapError(ctx, r.f.name, err)
		}
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		out, err := fromResponse(r.f.name, res, nil)
		if err != nil {
			return nil, err
		}
		replay(out, sink)
		return out, nil
	}

	stream := r.svc.NewStreaming(ctx, params)
	defer stream.Close()
	acc := responsesStream{sink: sink}
	for stream.Next() {
		if ctx.Err() != nil {
			break
		}
		if err := acc.event(r.f.name, stream.Current()); err != nil {
			return nil, err
		}
	}
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	if err := stream.Err(); err != nil {
		return nil, mapError(ctx, r.f.name, err)
	}
	if acc.final == nil {
		return nil, invalidResponse(r.f.name, "stream ended before the response completed")
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
