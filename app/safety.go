package app

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/hermes-go/hermes/config"
	"github.com/hermes-go/hermes/tool"
	"github.com/hermes-go/hermes/tool/approval"
	"github.com/hermes-go/hermes/tool/shellhook"
)

// newApprover is the dangerous-command policy. A surface with a person
// attached passes Options.Approve; without one, dangerous commands are
// denied unless Yolo (hardline commands are refused either way).
func (rt *Runtime) newApprover() *approval.Approver {
	return rt.approverFor(rt.opts.Approve, rt.opts.Yolo, rt.eventWarning)
}

// approverFor is the policy of an agent whose person asks with ask (nil:
// nobody), also for the agents of NewAgent. A key approved "always" is
// saved to config.yaml and allowed for the runtime's later agents too.
func (rt *Runtime) approverFor(ask func(context.Context, approval.Prompt) (approval.Choice, error), yolo bool, warn func(string)) *approval.Approver {
	cfg := rt.cfg
	return approval.New(approval.Options{
		Mode:      cfg.Approvals.Mode,
		Yolo:      yolo,
		Allowlist: rt.allowlist(),
		Timeout:   config.Seconds(cfg.Approvals.Timeout),
		Ask:       ask,
		OnWarning: warn,
		SaveAllowlist: func(key string) error {
			rt.rememberAlways(key)
			return config.AddToAllowlist(filepath.Join(cfg.Home, "config.yaml"), key)
		},
		WritableRoots: rt.policy.WritableRoots,
	})
}

// hooks builds the shell hooks of config.yaml.
func (rt *Runtime) hooks() ([]tool.PreHook, []tool.PostHook, error) {
	h := rt.cfg.Hooks
	pre, post, err := shellhook.Build(shellHooks(h.PreToolCall), shellHooks(h.PostToolCall),
		shellhook.Options{Dir: rt.workdir, OnWarning: rt.eventWarning})
	if err != nil {
		return nil, nil, configErr(fmt.Errorf("hooks: %w", err))
	}
	return pre, post, nil
}

func shellHooks(in []config.ShellHook) []shellhook.Hook {
	out := make([]shellhook.Hook, len(in))
	for i, h := range in {
		out[i] = shellhook.Hook{Matcher: h.Matcher, Command: h.Command, Timeout: config.Seconds(h.Timeout), FailOpen: h.FailOpen}
	}
	return out
}
