package app

import (
	"context"

	"github.com/hermes-go/hermes/agent"
	"github.com/hermes-go/hermes/config"
	"github.com/hermes-go/hermes/tool"
	"github.com/hermes-go/hermes/tool/approval"
	"github.com/hermes-go/hermes/tools/delegate"
)

// delegateTool is delegate_task for the top agent: children get their own
// provider chain (a fallback in one never moves another), a policy that
// never asks a human, and are stored as subagent sessions under the
// parent's. Their events reach the parent's observers through the parent
// agent (agent.EventRelay).
func (rt *Runtime) delegateTool(parent agent.Config) tool.Tool {
	cfg := rt.cfg
	d := cfg.Delegation
	childApprover := approval.New(approval.Options{Mode: cfg.Approvals.Mode, Yolo: d.SubagentAutoApprove, Allowlist: cfg.CommandAllowlist,
		WritableRoots: rt.policy.WritableRoots})
	var opts delegate.Options
	opts = delegate.Options{
		Client: parent.Client, Model: parent.Model, Provider: parent.Provider, APIMode: parent.APIMode,
		Tools:                 parent.Tools,
		ChildApprover:         childApprover,
		MaxIterations:         d.MaxIterations,
		MaxConcurrentChildren: d.MaxConcurrentChildren,
		MaxSpawnDepth:         d.MaxSpawnDepth,
		Timeout:               config.Seconds(d.Timeout),
		Store:                 rt.store,
		NewSessionID:          rt.newSessionID,
		ParentSessionID:       parent.Session.ID,
		Workdir:               rt.workdir,
		ToolTimeout:           parent.ToolTimeout,
		MaxResultChars:        parent.MaxResultChars,
		SpillDir:              parent.SpillDir,
		PreHooks:              parent.PreHooks,
		PostHooks:             parent.PostHooks,
		Redact:                parent.Redact,
		Now:                   rt.opts.Now,
		NewChild: func(ctx context.Context, spec delegate.ChildSpec) (*agent.Agent, error) {
			c := opts.ChildConfig(spec)
			chain, err := rt.newChain()
			if err != nil {
				return nil, err
			}
			c.Client = chain
			c.ReasoningEffort = parent.ReasoningEffort
			c.Cache = parent.Cache
			c.Session.Cwd = rt.workdir
			return agent.New(c), nil
		},
	}
	return delegate.New(opts)
}
