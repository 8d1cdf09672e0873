package cli

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/hermes-go/hermes/agent"
	"github.com/hermes-go/hermes/compress"
	"github.com/hermes-go/hermes/config"
	"github.com/hermes-go/hermes/llm"
	"github.com/hermes-go/hermes/provider"
	"github.com/hermes-go/hermes/provider/transport"
	"github.com/hermes-go/hermes/session"
	"github.com/hermes-go/hermes/tool"
	"github.com/hermes-go/hermes/tool/approval"
	"github.com/hermes-go/hermes/tool/shellhook"
	"github.com/hermes-go/hermes/tools/delegate"
)

// newChain builds a provider chain over the resolved endpoints. Every
// agent (the top one and each subagent) gets its own, so a fallback in
// one never moves another.
func (rt *runtime) newChain(onFallback func(provider.FallbackEvent)) (*provider.Chain, error) {
	return provider.NewChain(rt.entries, provider.ChainOptions{
		Factory:      transport.New,
		Transport:    llm.Options{NoStream: rt.noStream},
		Resolver:     rt.resolver,
		StaleTimeout: provider.DefaultStaleTimeout,
		OnRetry: func(ev provider.RetryEvent) {
			text := fmt.Sprintf("%s: %v; retrying in %s (%d/%d)", ev.Endpoint, ev.Err, ev.Wait.Round(100*time.Millisecond), ev.Attempt, ev.MaxRetries)
			if ev.CredentialRefresh {
				text = fmt.Sprintf("%s: %v; credentials refreshed, retrying", ev.Endpoint, ev.Err)
			}
			rt.obs.emit(agent.Event{Kind: agent.EventStatus, Time: time.Now(), Text: text})
		},
		OnFallback: onFallback,
	})
}

// newApprover is the dangerous-command policy. Interactive surfaces ask
// the user; one-shot runs have nobody to ask, so dangerous commands are
// denied unless --yolo (hardline commands are refused either way).
func (rt *runtime) newApprover(f *runFlags, bo buildOptions) *approval.Approver {
	cfg := rt.cfg
	opts := approval.Options{
		Mode:      cfg.Approvals.Mode,
		Yolo:      f.yolo,
		Allowlist: cfg.CommandAllowlist,
		Timeout:   config.Seconds(cfg.Approvals.Timeout),
		SaveAllowlist: func(key string) error {
			return config.AddToAllowlist(filepath.Join(rt.home, "config.yaml"), key)
		},
	}
	if bo.interactive && rt.lines != nil {
		opts.Ask = rt.askApproval
	}
	return approval.New(opts)
}

// askApproval prompts on stderr and reads the answer from stdin. No
// answer, or anything but o/s/a, is a deny.
func (rt *runtime) askApproval(ctx context.Context, p approval.Prompt) (approval.Choice, error) {
	w := rt.lines.prompt
	fmt.Fprintf(w, "\n⚠️  DANGEROUS COMMAND: %s\n    %s\n[o]nce | [s]ession | [a]lways | [d]eny\nChoice [o/s/a/D]: ", p.Description(), p.Command)
	line, err := rt.lines.read(ctx)
	if err != nil {
		return approval.Deny, err
	}
	switch strings.ToLower(strings.TrimSpace(line)) {
	case "o", "once", "y", "yes":
		return approval.Once, nil
	case "s", "session":
		return approval.Session, nil
	case "a", "always":
		return approval.Always, nil
	}
	return approval.Deny, nil
}

// hooks builds the shell hooks of config.yaml.
func (rt *runtime) hooks() ([]tool.PreHook, []tool.PostHook, error) {
	pre, post, err := shellhook.FromConfig(rt.cfg.Hooks, shellhook.Options{OnWarning: func(s string) {
		rt.obs.emit(agent.Event{Kind: agent.EventWarning, Time: time.Now(), Text: s})
	}})
	if err != nil {
		return nil, nil, &setupError{fmt.Errorf("hooks: %w", err)}
	}
	return pre, post, nil
}

// delegateTool is delegate_task for the top agent: children get their own
// provider chain, a policy that never asks a human, and are stored as
// subagent sessions under the parent's.
func (rt *runtime) delegateTool(parent agent.Config) tool.Tool {
	cfg := rt.cfg
	d := cfg.Delegation
	childApprover := approval.New(approval.Options{Mode: cfg.Approvals.Mode, Yolo: d.SubagentAutoApprove, Allowlist: cfg.CommandAllowlist})
	var opts delegate.Options
	opts = delegate.Options{
		Client: parent.Client, Model: parent.Model, Provider: parent.Provider, APIMode: parent.APIMode,
		Tools:                 parent.Tools,
		ChildApprover:         childApprover,
		MaxIterations:         d.MaxIterations,
		MaxConcurrentChildren: d.MaxConcurrentChildren,
		MaxSpawnDepth:         d.MaxSpawnDepth,
		Timeout:               config.Seconds(d.Timeout),
		Observer:              rt.obs.emit,
		Store:                 parent.Store,
		NewSessionID:          func() string { return session.NewID(time.Now) },
		ParentSessionID:       parent.Session.ID,
		ToolTimeout:           parent.ToolTimeout,
		MaxResultChars:        parent.MaxResultChars,
		SpillDir:              parent.SpillDir,
		PreHooks:              parent.PreHooks,
		PostHooks:             parent.PostHooks,
		Redact:                parent.Redact,
		NewChild: func(ctx context.Context, spec delegate.ChildSpec) (*agent.Agent, error) {
			c := opts.ChildConfig(spec)
			var child *agent.Agent
			chain, err := rt.newChain(func(ev provider.FallbackEvent) {
				if child != nil {
					child.SwitchModel(ev.To.Model, ev.To.Provider)
				}
			})
			if err != nil {
				return nil, err
			}
			c.Client = chain
			c.ReasoningEffort = parent.ReasoningEffort
			c.Cache = parent.Cache
			c.RewritePrompt = parent.RewritePrompt
			child = agent.New(c)
			return child, nil
		},
	}
	return delegate.New(opts)
}

// wireCompression gives the agent its context window (built-in table,
// model.context_length, or a limit learned from an earlier overflow) and
// the compressor, whose summaries come from auxiliary.compression.
func (rt *runtime) wireCompression(ctx context.Context, acfg *agent.Config, pcfg provider.Config) error {
	cache, err := provider.OpenContextCache(filepath.Join(rt.home, "context_lengths.json"))
	if err != nil {
		rt.obs.emit(agent.Event{Kind: agent.EventWarning, Time: time.Now(), Text: err.Error()})
		cache = nil
	}
	acfg.ContextLength = provider.ContextWindow(rt.endpoint, cache)
	ep := rt.endpoint
	acfg.LearnContextLimit = func(model string, limit int) {
		if cache != nil {
			if err := cache.Learn(model, ep.BaseURL, limit); err != nil {
				rt.obs.emit(agent.Event{Kind: agent.EventWarning, Time: time.Now(), Text: err.Error()})
			}
		}
	}
	if !*rt.cfg.Compression.Enabled {
		return nil
	}
	summarizer, problems, err := provider.NewAuxiliary(ctx, provider.TaskCompression, pcfg, provider.ChainOptions{
		Factory: transport.New, Resolver: rt.resolver, Transport: llm.Options{NoStream: rt.noStream},
	})
	for _, p := range problems {
		rt.obs.emit(agent.Event{Kind: agent.EventWarning, Time: time.Now(), Text: "auxiliary compression: " + p.Error()})
	}
	if err != nil {
		return &setupError{err}
	}
	c := &compress.Compressor{
		Summarizer:    summarizer,
		Model:         summarizer.Current().Model,
		Threshold:     rt.cfg.Compression.Threshold,
		ProtectFirstN: rt.cfg.Compression.ProtectFirstN,
		ProtectLastN:  rt.cfg.Compression.ProtectLastN,
		ContextLength: acfg.ContextLength,
		Todos:         rt.activeTodos,
		BeforeCompress: func(ctx context.Context) error {
			return rt.flushMemory(ctx)
		},
	}
	acfg.Compressor = compress.Messages{Compressor: c}
	return nil
}
