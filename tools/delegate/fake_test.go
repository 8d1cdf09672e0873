package delegate

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/hermes-go/hermes/agent"
	"github.com/hermes-go/hermes/llm"
	"github.com/hermes-go/hermes/tool"
)

// step answers one model call.
type step func(ctx context.Context, req *llm.Request) (*llm.Response, error)

// router is a scripted llm.Client shared by a parent and its children: it
// routes each request to the script whose key appears in the request's
// system prompt (a child's prompt holds its goal).
type router struct {
	mu      sync.Mutex
	scripts map[string][]step
	reqs    map[string][]*llm.Request
}

func newRouter() *router {
	return &router{scripts: map[string][]step{}, reqs: map[string][]*llm.Request{}}
}

func (r *router) on(key string, steps ...step) *router {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.scripts[key] = append(r.scripts[key], steps...)
	return r
}

func (r *router) Complete(ctx context.Context, req *llm.Request, sink func(llm.Delta)) (*llm.Response, error) {
	sys := ""
	if len(req.Messages) > 0 && req.Messages[0].Role == llm.RoleSystem {
		sys = req.Messages[0].Content
	}
	r.mu.Lock()
	keys := make([]string, 0, len(r.scripts))
	for k := range r.scripts {
		keys = append(keys, k)
	}
	// Longest key first, so "task 1" never captures "task 12".
	slices.SortFunc(keys, func(a, b string) int { return len(b) - len(a) })
	key := ""
	for _, k := range keys {
		if strings.Contains(sys, k) {
			key = k
			break
		}
	}
	r.reqs[key] = append(r.reqs[key], req)
	steps := r.scripts[key]
	if len(steps) == 0 {
		r.mu.Unlock()
		return nil, fmt.Errorf("no script step left for %q (system prompt %.80q)", key, sys)
	}
	s := steps[0]
	r.scripts[key] = steps[1:]
	r.mu.Unlock()
	return s(ctx, req)
}

func (r *router) requests(key string) []*llm.Request {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]*llm.Request(nil), r.reqs[key]...)
}

func text(s string) step {
	return func(context.Context, *llm.Request) (*llm.Response, error) {
		return &llm.Response{Message: llm.Assistant(s), FinishReason: llm.FinishStop, Usage: llm.Usage{InputTokens: 100, OutputTokens: 10}}, nil
	}
}

func callTool(id, name, args string) step {
	return func(context.Context, *llm.Request) (*llm.Response, error) {
		return &llm.Response{Message: llm.Message{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{{ID: id, Name: name, Arguments: args}}},
			FinishReason: llm.FinishToolCalls, Usage: llm.Usage{InputTokens: 100, OutputTokens: 5}}, nil
	}
}

func fail(err error) step {
	return func(context.Context, *llm.Request) (*llm.Response, error) { return nil, err }
}

// hang signals entered, then waits for the call's context to end, as a
// real transport does.
func hang(entered chan<- string, name string) step {
	return func(ctx context.Context, _ *llm.Request) (*llm.Response, error) {
		entered <- name
		<-ctx.Done()
		return nil, ctx.Err()
	}
}

// shell is a Commander tool that records the commands it ran.
type shell struct {
	mu  sync.Mutex
	ran []string
}

func (s *shell) Spec() tool.Spec {
	return tool.Spec{Name: "terminal", Toolset: "terminal", Class: tool.Sequential,
		Parameters: json.RawMessage(`{"type":"object","properties":{"command":{"type":"string"}},"required":["command"]}`)}
}

func (s *shell) Command(args json.RawMessage) (string, bool) {
	var a struct{ Command string }
	if json.Unmarshal(args, &a) != nil || a.Command == "" {
		return "", false
	}
	return a.Command, true
}

func (s *shell) Run(_ context.Context, c tool.Call) (tool.Result, error) {
	cmd, _ := s.Command(c.Args)
	s.mu.Lock()
	s.ran = append(s.ran, cmd)
	s.mu.Unlock()
	return tool.Text("ran: " + cmd), nil
}

func (s *shell) commands() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.ran...)
}

// named is a do-nothing tool with a name and toolset.
func named(name, toolset, out string) tool.Tool {
	return tool.Func{S: tool.Spec{Name: name, Toolset: toolset}, Fn: func(context.Context, tool.Call) (tool.Result, error) {
		return tool.Text(out), nil
	}}
}

// events records observer events.
type events struct {
	mu sync.Mutex
	ev []agent.Event
}

func (e *events) observe(ev agent.Event) { e.mu.Lock(); e.ev = append(e.ev, ev); e.mu.Unlock() }
func (e *events) all() []agent.Event {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]agent.Event(nil), e.ev...)
}

// store is an agent.Store that remembers sessions and messages.
type store struct {
	mu       sync.Mutex
	sessions []agent.SessionMeta
	msgs     map[string][]llm.Message
}

func (s *store) EnsureSession(_ context.Context, m agent.SessionMeta) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.sessions = append(s.sessions, m)
	return nil
}

func (s *store) AppendMessage(_ context.Context, id string, m llm.Message) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.msgs == nil {
		s.msgs = map[string][]llm.Message{}
	}
	s.msgs[id] = append(s.msgs[id], m)
	return nil
}

func (s *store) AddUsage(context.Context, string, llm.Usage, int) error { return nil }
func (s *store) SetSystemPrompt(context.Context, string, string) error  { return nil }

func toolNames(req *llm.Request) []string {
	var out []string
	for _, d := range req.Tools {
		out = append(out, d.Name)
	}
	slices.Sort(out)
	return out
}

func call(args string) tool.Call {
	return tool.Call{ID: "call_d", Name: Name, Args: json.RawMessage(args), TaskID: "parent-task", SessionID: "parent-session"}
}
