package app

import (
	"context"
	"fmt"

	"github.com/hermes-go/hermes/config"
	"github.com/hermes-go/hermes/tool"
	"github.com/hermes-go/hermes/tool/approval"
	"github.com/hermes-go/hermes/tool/shellhook"
)

// approverFor is the dangerous-command policy of a conversation whose
// person asks with ask (nil: nobody is there, so such commands are
// denied unless yolo; hardline commands are refused either way). Keys
// approved "always" go to the runtime's allowlist, which every
// conversation and subagent consults, and to config.yaml. roots are the
// writable roots of the conversation's sandbox.
func (rt *Runtime) approverFor(ask func(context.Context, approval.Prompt) (approval.Choice, error), yolo bool, roots []string, warn func(string)) *approval.Approver {
	return approval.New(approval.Options{
		Mode:      rt.cfg.Approvals.Mode,
		Yolo:      yolo,
		Shared:    rt.always,
		Timeout:   config.Seconds(rt.cfg.Approvals.Timeout),
		Ask:       ask,
		OnWarning: warn,
		// A file deleted inside the workspace is never a system file,
		// wherever the workspace lies (/srv, /opt, ...).
		WritableRoots: roots,
	})
}

// hooks builds the shell hooks of config.yaml for a workspace in dir;
// their warnings go to warn (nil: the runtime's).
func (rt *Runtime) hooks(dir string, warn func(string)) ([]tool.PreHook, []tool.PostHook, error) {
	if warn == nil {
		warn = rt.warn
	}
	h := rt.cfg.Hooks
	pre, post, err := shellhook.Build(shellHooks(h.PreToolCall), shellHooks(h.PostToolCall),
		shellhook.Options{Dir: dir, OnWarning: warn})
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
