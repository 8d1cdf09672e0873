package agent

import (
	"context"
	"fmt"
	"sync"

	"github.com/hermes-go/hermes/llm"
)

// scripted is a fake llm.Client: each call takes the next step and
// records the request it was given.
type scripted struct {
	mu    sync.Mutex
	steps []func(ctx context.Context, req *llm.Request, sink func(llm.Delta)) (*llm.Response, error)
	reqs  []*llm.Request
}

func (s *scripted) Complete(ctx context.Context, req *llm.Request, sink func(llm.Delta)) (*llm.Response, error) {
	s.mu.Lock()
	s.reqs = append(s.reqs, req)
	if len(s.steps) == 0 {
		s.mu.Unlock()
		return nil, fmt.Errorf("script ran out at call %d", len(s.reqs))
	}
	f := s.steps[0]
	s.steps = s.steps[1:]
	s.mu.Unlock()
	return f(ctx, req, sink)
}

func (s *scripted) add(f ...func(ctx context.Context, req *llm.Request, sink func(llm.Delta)) (*llm.Response, error)) *scripted {
	s.steps = append(s.steps, f...)
	return s
}

func (s *scripted) requests() []*llm.Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]*llm.Request(nil), s.reqs...)
}

func text(s string) func(context.Context, *llm.Request, func(llm.Delta)) (*llm.Response, error) {
	return reply(&llm.Response{Message: llm.Assistant(s), FinishReason: llm.FinishStop, Usage: llm.Usage{InputTokens: 10, OutputTokens: 2, TotalTokens: 12}})
}

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
