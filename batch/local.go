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

// Local runs each prompt in this process, as a conversation of one
// runtime shared by the whole run (built on first use, closed by Close):
// its own workspace and session (source "batch"), under the sandbox,
// with nobody to approve a dangerous command (it is denied). Providers,
// the store, MCP servers and skills are set up once, not per prompt.
type Local struct {
	// Config is the base configuration (ApplyPolicy is applied to a copy).
	Config *config.Config
	// Options is the runtime's: Getenv, HTTPClient, Factory, NoStream.
	Options app.Options
	// Memory keeps memory and context files on (off by default in a
	// batch, as upstream: they would leak between prompts).
	Memory bool
	// Runtime, when set, is the runtime to use (its caller closes it);
	// otherwise one is built from Config and Options.
	Runtime *app.Runtime

	once sync.Once
	rt   *app.Runtime
	err  error
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

// NewRuntime builds the runtime a batch run's prompts share: base under
// ApplyPolicy, sessions stored with source "batch".
func NewRuntime(ctx context.Context, base *config.Config, opts app.Options) (*app.Runtime, error) {
	cfg := *base
	ApplyPolicy(&cfg)
	opts.Source = "batch"
	return app.New(ctx, &cfg, opts)
}

// OpenPrompt opens the conversation of one prompt in workdir, offering
// toolsets (all the runtime offers when empty); memory keeps memory and
// context files on.
func OpenPrompt(ctx context.Context, rt *app.Runtime, p app.ConversationOptions, toolsets []string, workdir string, memory bool) (*app.Conversation, error) {
	p.Workdir, p.Toolsets, p.IgnoreRules = workdir, slices.Clone(toolsets), !memory
	p.Approve, p.Clarify, p.Yolo = nil, nil, false
	return rt.Open(ctx, p)
}

// runtime is the run's runtime, built on first use.
func (l *Local) runtime(ctx context.Context) (*app.Runtime, error) {
	if l.Runtime != nil {
		return l.Runtime, nil
	}
	l.once.Do(func() {
		l.rt, l.err = NewRuntime(context.WithoutCancel(ctx), l.Config, l.Options)
	})
	return l.rt, l.err
}

// Close closes the runtime Local built.
func (l *Local) Close() error {
	if l.rt == nil {
		return nil
	}
	return l.rt.Close()
}

// Run implements Engine.
func (l *Local) Run(ctx context.Context, t Task) (*Outcome, error) {
	rt, err := l.runtime(ctx)
	if err != nil {
		return nil, err
	}
	dir, cleanup, err := PrepareWorkspace(t, true)
	if err != nil {
		return nil, err
	}
	defer cleanup()
	var mu sync.Mutex
	toolErrs := map[string]bool{}
	observe := func(e agent.Event) {
		if e.Kind == agent.EventToolFinished && e.Depth == 0 && e.Tool != nil {
			mu.Lock()
			toolErrs[e.Tool.CallID] = e.Tool.IsError
			mu.Unlock()
		}
	}
	c, err := OpenPrompt(ctx, rt, app.ConversationOptions{Observer: observe}, t.Toolsets, dir, l.Memory)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	begin := time.Now()
	res, err := c.Run(ctx, agent.Input{Message: t.Prompt.Text, Images: t.Images, TaskID: fmt.Sprintf("task_%d", t.Prompt.Index)})
	if err != nil {
		return nil, err
	}
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	if err := c.End(string(res.ExitReason)); err != nil {
		return nil, err
	}
	mu.Lock()
	defer mu.Unlock()
	return outcomeOf(res, Defs(c.ToolSpecs()), toolErrs, time.Since(begin)), nil
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
