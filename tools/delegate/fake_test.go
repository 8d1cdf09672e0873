package delegate

import (
	"context"
	"encoding/json"
	"maps"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/hermes-go/hermes/agent"
	"github.com/hermes-go/hermes/llm"
	"github.com/hermes-go/hermes/llm/llmtest"
	"github.com/hermes-go/hermes/tool"
)

// step is one scripted model answer: a Reply, or a function for what a
// Reply cannot say (an error already classified, blocking on the test).
type step struct {
	reply llmtest.Reply
	fn    llm.ClientFunc
}

// router is the model a parent and its children share: one llmtest.Client
// per script key, each request going to the Client whose key appears in
// its system prompt (a child's prompt holds its goal). A request matching
// no key goes to the Client of "", which has no script: the test fails.
type router struct {
	t testing.TB

	mu      sync.Mutex
	clients map[string]*llmtest.Client
}

func newRouter(t testing.TB) *router {
	return &router{t: t, clients: map[string]*llmtest.Client{}}
}

func (r *router) client(key string) *llmtest.Client {
	r.mu.Lock()
	defer r.mu.Unlock()
	c := r.clients[key]
	if c == nil {
		c = llmtest.NewClient(r.t)
		r.clients[key] = c
	}
	return c
}

func (r *router) on(key string, steps ...step) *router {
	c := r.client(key)
	for _, s := range steps {
		if s.fn != nil {
			c.EnqueueFunc(s.fn)
		} else {
			c.Enqueue(s.reply)
		}
	}
	return r
}

func (r *router) Complete(ctx context.Context, req *llm.Request, sink func(llm.Delta)) (*llm.Response, error) {
	sys := ""
	if len(req.Messages) > 0 && req.Messages[0].Role == llm.RoleSystem {
		sys = req.Messages[0].Content
	}
	r.mu.Lock()
	keys := slices.Collect(maps.Keys(r.clients))
	r.mu.Unlock()
	// Longest key first, so "task 1" never captures "task 12".
	slices.SortFunc(keys, func(a, b string) int { return len(b) - len(a) })
	key := ""
	for _, k := range keys {
		if k != "" && strings.Contains(sys, k) {
			key = k
			break
		}
	}
	return r.client(key).Complete(ctx, req, sink)
}

func (r *router) requests(key string) []*llm.Request { return r.client(key).Requests() }

func text(s string) step {
	return step{reply: llmtest.Reply{Text: s, Usage: &llm.Usage{InputTokens: 100, OutputTokens: 10}}}
}

func callTool(id, name, args string) step {
	return step{reply: llmtest.Reply{ToolCalls: []llm.ToolCall{{ID: id, Name: name, Arguments: args}}, Usage: &llm.Usage{InputTokens: 100, OutputTokens: 5}}}
}

func answer(fn llm.ClientFunc) step { return step{fn: fn} }

func fail(err error) step {
	return answer(func(context.Context, *llm.Request, func(llm.Delta)) (*llm.Response, error) { return nil, err })
}

// hang signals entered, then waits for the call's context to end, as a
// real transport does.
func hang(entered chan<- string, name string) step {
	return answer(func(ctx context.Context, _ *llm.Request, _ func(llm.Delta)) (*llm.Response, error) {
		entered <- name
		<-ctx.Done()
		return nil, ctx.Err()
	})
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
