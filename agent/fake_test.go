package agent

import (
	"context"
	"testing"

	"github.com/hermes-go/hermes/llm"
	"github.com/hermes-go/hermes/llm/llmtest"
)

// scripted is the model of the loop tests: an llmtest.Client whose script
// is a list of steps, each answering one call. The zero value is ready.
type scripted struct{ *llmtest.Client }

// script returns a scripted client that fails t at cleanup when a call
// found no step left.
func script(t testing.TB) *scripted { return &scripted{llmtest.NewClient(t)} }

func (s *scripted) add(steps ...llm.ClientFunc) *scripted {
	s.EnqueueFunc(steps...)
	return s
}

func (s *scripted) requests() []*llm.Request { return s.Requests() }

func text(s string) func(context.Context, *llm.Request, func(llm.Delta)) (*llm.Response, error) {
	return reply(&llm.Response{Message: llm.Assistant(s), FinishReason: llm.FinishStop, Usage: llm.Usage{InputTokens: 10, OutputTokens: 2, TotalTokens: 12}})
}

// reply answers with r, its content streamed as one delta.
func reply(r *llm.Response) func(context.Context, *llm.Request, func(llm.Delta)) (*llm.Response, error) {
	return func(ctx context.Context, req *llm.Request, sink func(llm.Delta)) (*llm.Response, error) {
		if sink != nil && r.Message.Content != "" {
			sink(llm.Delta{Kind: llm.DeltaText, Text: r.Message.Content})
		}
		c := *r
		c.Message = r.Message.Clone()
		return &c, nil
	}
}

func calls(cs ...llm.ToolCall) func(context.Context, *llm.Request, func(llm.Delta)) (*llm.Response, error) {
	return reply(&llm.Response{Message: llm.Message{Role: llm.RoleAssistant, ToolCalls: cs}, FinishReason: llm.FinishToolCalls, Usage: llm.Usage{InputTokens: 10, OutputTokens: 5, TotalTokens: 15}})
}

func fail(err error) func(context.Context, *llm.Request, func(llm.Delta)) (*llm.Response, error) {
	return func(context.Context, *llm.Request, func(llm.Delta)) (*llm.Response, error) { return nil, err }
}
