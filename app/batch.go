package app

import (
	"context"
	"sync"

	"github.com/hermes-go/hermes/agent"
	"github.com/hermes-go/hermes/llm"
	"github.com/hermes-go/hermes/tool"
)

// What batch engines need beyond Agent: the tools a trajectory lists, and
// the pieces of one turn run one at a time, for a durable engine (package
// batch/temporal) that records each model call and each tool call as a
// task of its own and replays the loop over the recorded results.

// ToolSpecs lists the tools the agent offers, in the order the model
// sees them: agent-level tools first, then the built-in and embedder
// tools, each only when its availability check passes.
func (rt *Runtime) ToolSpecs() []tool.Spec {
	var out []tool.Spec
	seen := map[string]bool{}
	for _, t := range rt.acfg.AgentTools {
		s := t.Spec()
		if s.Check != nil && s.Check() != nil {
			continue
		}
		seen[s.Name] = true
		out = append(out, s)
	}
	avail, _ := rt.acfg.Tools.Available()
	for _, t := range avail {
		if s := t.Spec(); !seen[s.Name] {
			out = append(out, s)
		}
	}
	return out
}

// SystemPrompt builds the system prompt a new session of this runtime
// starts with, masked as the agent masks it.
func (rt *Runtime) SystemPrompt(ctx context.Context) (string, error) {
	if rt.acfg.SystemPrompt == nil {
		return "", nil
	}
	p, err := rt.acfg.SystemPrompt(ctx, rt.acfg.Model, rt.acfg.Provider)
	if err != nil {
		return "", err
	}
	if rt.redact != nil {
		p = rt.redact(p)
	}
	return p, nil
}

// Complete makes one model call the way the agent's calls go: through the
// runtime's provider chain, with its retries and fallbacks.
func (rt *Runtime) Complete(ctx context.Context, req *llm.Request, sink func(llm.Delta)) (*llm.Response, error) {
	return rt.acfg.Client.Complete(ctx, req, sink)
}

// CallTool runs one tool call the way the agent's executor runs it:
// agent-level tools before the registry, pre_tool_call hooks, the
// dangerous-command check (denied when nobody can approve), the deadline,
// post_tool_call hooks, the result cap and secret masking. Every failure
// is in the Outcome, as the model would read it.
func (rt *Runtime) CallTool(ctx context.Context, call tool.Call) tool.Outcome {
	rt.execOnce.Do(func() {
		c := rt.acfg
		local := map[string]tool.Tool{}
		for _, t := range c.AgentTools {
			local[t.Spec().Name] = t
		}
		names := func() []string {
			var n []string
			for _, s := range rt.ToolSpecs() {
				n = append(n, s.Name)
			}
			return n
		}
		rt.exec = &tool.Executor{
			Resolve: func(name string) (tool.Tool, bool) {
				if t, ok := local[name]; ok {
					return t, true
				}
				t, ok := c.Tools.Get(name)
				if ok && t.Spec().Check != nil && t.Spec().Check() != nil {
					return nil, false
				}
				return t, ok
			},
			Names: names, Pre: c.PreHooks, Post: c.PostHooks, Approver: c.Approver,
			Timeout: c.ToolTimeout, MaxResultChars: c.MaxResultChars, SpillDir: c.SpillDir,
			Redact: c.Redact, Now: c.Now,
		}
	})
	return rt.exec.Execute(ctx, []tool.Call{call})[0]
}

// ReplayAgent returns an agent with this runtime's loop settings (model,
// iteration budget, budget warnings, guardrails, reasoning, caching,
// redaction) that calls client and offers tools instead of the runtime's
// own, and keeps nothing: no session, store, hooks, approvals, memory,
// compression or observer. A durable engine runs it over recorded model
// and tool results to learn the loop's next step; the tools it offers
// stand in for the real ones, which run through CallTool.
func (rt *Runtime) ReplayAgent(client llm.Client, tools []tool.Tool) *agent.Agent {
	c := rt.acfg
	c.Client = client
	c.Tools = tool.NewRegistry(tools...)
	c.AgentTools = nil
	c.Store, c.Session, c.NewSessionID = nil, agent.SessionMeta{}, nil
	c.PreHooks, c.PostHooks, c.Approver = nil, nil, nil
	c.Compressor, c.OnCompressed, c.OnTurnEnd, c.LearnContextLimit = nil, nil, nil, nil
	c.SystemPrompt, c.Observer = nil, nil
	return agent.New(c)
}

// batchExec is CallTool's executor, built on first use.
type batchExec struct {
	execOnce sync.Once
	exec     *tool.Executor
}
