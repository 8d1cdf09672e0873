package app

import (
	"context"

	"github.com/hermes-go/hermes/agent"
	"github.com/hermes-go/hermes/llm"
	"github.com/hermes-go/hermes/tool"
)

// What batch engines need beyond Run: the tools a trajectory lists, and
// the pieces of one turn run one at a time, for a durable engine (package
// batch/temporal) that records each model call and each tool call as a
// task of its own and replays the loop over the recorded results.

// ToolSpecs lists the tools the conversation offers, in the order the
// model sees them: agent-level tools first, then the built-in and
// embedder tools, each only when its availability check passes.
func (c *Conversation) ToolSpecs() []tool.Spec { return c.agent.ToolSpecs() }

// SystemPrompt builds the system prompt the conversation's session starts
// with, for the model it is on now, masked as the agent masks it.
func (c *Conversation) SystemPrompt(ctx context.Context) (string, error) {
	model, prov := c.Endpoint().Model, c.Endpoint().Provider
	p, err := c.systemPrompt(ctx, model, prov)
	if err != nil {
		return "", err
	}
	if c.rt.redact != nil {
		p = c.rt.redact(p)
	}
	return p, nil
}

// Complete makes one model call the way the conversation's calls go:
// through its provider chain (the model it is on now), with its retries
// and fallbacks.
func (c *Conversation) Complete(ctx context.Context, req *llm.Request, sink func(llm.Delta)) (*llm.Response, error) {
	c.modelMu.Lock()
	chain := c.chain
	c.modelMu.Unlock()
	return chain.Complete(ctx, req, sink)
}

// CallTool runs one tool call the way the agent's executor runs it:
// agent-level tools before the registry, pre_tool_call hooks, the
// dangerous-command check (denied when nobody can approve), the deadline,
// post_tool_call hooks, the result cap and secret masking. Every failure
// is in the Outcome, as the model would read it.
func (c *Conversation) CallTool(ctx context.Context, call tool.Call) tool.Outcome {
	return c.agent.Execute(ctx, []tool.Call{call})[0]
}

// ReplayAgent returns an agent with this conversation's loop settings
// (model, iteration budget, budget warnings, guardrails, reasoning,
// caching, redaction) that calls client and offers tools instead of the
// conversation's own, and keeps nothing: no session, store, hooks,
// approvals, memory, compression or observer. A durable engine runs it
// over recorded model and tool results to learn the loop's next step;
// the tools it offers stand in for the real ones, which run through
// CallTool.
func (c *Conversation) ReplayAgent(client llm.Client, tools []tool.Tool) *agent.Agent {
	c.modelMu.Lock()
	chain := c.chain
	c.modelMu.Unlock()
	cfg, err := c.agentConfig(chain, agent.SessionMeta{})
	if err != nil {
		c.warning(err.Error())
	}
	cfg.Client = client
	cfg.Tools = tool.NewRegistry(tools...)
	cfg.AgentTools, cfg.ToolsReady = nil, nil
	cfg.Store, cfg.Session, cfg.NewSessionID = nil, agent.SessionMeta{}, nil
	cfg.PreHooks, cfg.PostHooks, cfg.Approver = nil, nil, nil
	cfg.Compressor, cfg.OnCompressed, cfg.OnTurnEnd, cfg.LearnContextLimit = nil, nil, nil, nil
	cfg.SystemPrompt, cfg.Observer = nil, nil
	return agent.New(cfg)
}
