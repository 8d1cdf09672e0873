package app

import (
	"github.com/hermes-go/hermes/agent"
	"github.com/hermes-go/hermes/config"
	"github.com/hermes-go/hermes/tool/approval"
	"github.com/hermes-go/hermes/tools/delegate"
)

// childOwn lists what a subagent of a conversation has of its own beyond
// delegate.ChildDiffers, and why.
func childOwn() map[string]string {
	return map[string]string{
		"Client":     "its own provider chain: a fallback in one agent never moves another",
		"Compressor": "its own copy, without the parent's task list",
	}
}

// delegateTool is delegate_task for the conversation whose agent
// configuration is parent: a child's configuration is the parent's with
// only what makes it a child changed (delegate.ChildDiffers, childOwn),
// it never asks a human (delegation.subagent_auto_approve, the runtime's
// allowlist), and it is stored as a subagent session under the parent's.
// Its events reach the parent's observers through the parent agent
// (agent.EventRelay).
func (c *Conversation) delegateTool(parent agent.Config) *delegate.Tool {
	return delegate.New(c.delegateOptions(parent))
}

// delegateOptions are delegateTool's options.
func (c *Conversation) delegateOptions(parent agent.Config) delegate.Options {
	rt := c.rt
	d := rt.cfg.Delegation
	return delegate.Options{
		Parent: parent,
		ChildApprover: approval.New(approval.Options{Mode: rt.cfg.Approvals.Mode, Yolo: d.SubagentAutoApprove,
			Shared: rt.always, WritableRoots: c.ws.policy.WritableRoots}),
		MaxIterations:         d.MaxIterations,
		MaxConcurrentChildren: d.MaxConcurrentChildren,
		MaxSpawnDepth:         d.MaxSpawnDepth,
		Timeout:               config.Seconds(d.Timeout),
		NewSessionID:          rt.newSessionID,
		ParentSessionID:       parent.Session.ID,
		Workdir:               c.ws.workdir,
		Configure:             c.configureChild,
	}
}

// configureChild gives a child what childOwn lists, and the model the
// conversation is on now (a /model switch reaches the children of later
// turns).
func (c *Conversation) configureChild(spec delegate.ChildSpec, cfg *agent.Config) {
	c.modelMu.Lock()
	entries := c.entries
	c.modelMu.Unlock()
	if chain, err := c.rt.chainOver(entries); err == nil {
		ep := chain.Current()
		cfg.Client, cfg.Model, cfg.Provider, cfg.APIMode = chain, ep.Model, ep.Provider, ep.APIMode
	} else {
		c.warning("subagent: " + err.Error())
	}
	if c.compress != nil {
		own := *c.compress
		own.Todos, own.BeforeCompress = nil, nil
		cfg.Compressor = &own
	}
}
