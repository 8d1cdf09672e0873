package batch

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/hermes-go/hermes/agent"
	"github.com/hermes-go/hermes/app"
	"github.com/hermes-go/hermes/config"
	"github.com/hermes-go/hermes/llm"
	"github.com/hermes-go/hermes/tool"
)

// Local runs each prompt in this process: its own runtime (app.New, source
// "batch") in its own workspace and session, under the sandbox, with
// nobody to approve a dangerous command (it is denied).
type Local struct {
	// Config is the base configuration (ApplyPolicy is applied to a copy
	// for each prompt, with the prompt's toolsets).
	Config *config.Config
	// Options is the template of every prompt's runtime: Getenv,
	// HTTPClient, Factory. Source, Workdir, Approve, Clarify, Yolo and
	// IgnoreRules are set per prompt.
	Options app.Options
	// Memory keeps memory and context files on (off by default in a
	// batch, as upstream: they would leak between prompts).
	Memory bool
}

// Name implements Engine.
func (l *Local) Name() string { return "local" }

// ApplyPolicy is what every batch prompt runs under, whatever config.yaml
// says: nobody approves, so approvals cannot be turned off (dangerous
// commands are denied); workspaces are throwaway, so no checkpoints.
func ApplyPolicy(cfg *config.Config) {
	cfg.Approvals.Mode = "manual"
	off := false
	cfg.Checkpoints.Enabled = &off
}

// RuntimeFor builds the runtime of one prompt in workdir.
func RuntimeFor(ctx context.Context, base *config.Config, opts app.Options, toolsets []string, workdir string, memory bool) (*app.Runtime, error) {
	cfg := *base
	cfg.Toolsets = slices.Clone(toolsets)
	ApplyPolicy(&cfg)
	opts.Source = "batch"
	opts.Workdir = workdir
	opts.IgnoreRules = !memory
	opts.Approve, opts.Clarify, opts.Yolo = nil, nil, false
	return app.New(ctx, &cfg, opts)
}

// Run implements Engine.
func (l *Local) Run(ctx context.Context, t Task) (*Outcome, error) {
	dir, cleanup, err := PrepareWorkspace(t, true)
	if err != nil {
		return nil, err
	}
	defer cleanup()
	rt, err := RuntimeFor(ctx, l.Config, l.Options, t.Toolsets, dir, l.Memory)
	if err != nil {
		return nil, err
	}
	defer rt.Close()
	var mu sync.Mutex
	toolErrs := map[string]bool{}
	rt.Observe(func(e agent.Event) {
		if e.Kind == agent.EventToolFinished && e.Depth == 0 && e.Tool != nil {
			mu.Lock()
			toolErrs[e.Tool.CallID] = e.Tool.IsError
			mu.Unlock()
		}
	})
	begin := time.Now()
	res, err := rt.Agent().Run(ctx, agent.Input{Message: t.Prompt.Text, Images: t.Images, TaskID: fmt.Sprintf("task_%d", t.Prompt.Index)})
	if err != nil {
		return nil, err
	}
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	if err := rt.EndSession(string(res.ExitReason)); err != nil {
		return nil, err
	}
	mu.Lock()
	defer mu.Unlock()
	return outcomeOf(res, Defs(rt.ToolSpecs()), toolErrs, time.Since(begin)), nil
}

// Defs converts specs to the definitions a trajectory lists.
func Defs(specs []tool.Spec) []llm.ToolDef {
	out := make([]llm.ToolDef, len(specs))
	for i, s := range specs {
		out[i] = tool.Def(s)
	}
	return out
}

func outcomeOf(res *agent.Result, tools []llm.ToolDef, toolErrs map[string]bool, d time.Duration) *Outcome {
	o := &Outcome{
		Messages: res.Messages, Tools: tools, ToolErrors: toolErrs, APICalls: res.APICalls,
		Completed: res.Completed, Partial: res.Partial, Failed: res.Failed, ExitReason: string(res.ExitReason),
		Usage: res.Usage, Model: res.Model, Provider: res.Provider, SessionID: res.SessionID, Duration: d,
	}
	if res.Error != nil && !res.Completed {
		o.Error = res.Error.Error()
	}
	return o
}
