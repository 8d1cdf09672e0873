package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/hermes-go/hermes/agent"
	"github.com/hermes-go/hermes/compress"
	"github.com/hermes-go/hermes/config"
	"github.com/hermes-go/hermes/llm"
	"github.com/hermes-go/hermes/prompt"
	"github.com/hermes-go/hermes/provider"
	"github.com/hermes-go/hermes/redact"
	"github.com/hermes-go/hermes/session"
	"github.com/hermes-go/hermes/tool"
	"github.com/hermes-go/hermes/tool/approval"
	"github.com/hermes-go/hermes/tools/file"
	"github.com/hermes-go/hermes/tools/terminal"
)

// runtime is everything one hermes run uses.
type runtime struct {
	cfg      *config.Config
	home     string
	endpoint provider.Endpoint
	agent    *agent.Agent
	obs      *observers
	entries  []provider.Endpoint
	resolver provider.Resolver
	noStream bool
	approver *approval.Approver
	lines    *lineReader
	stderr   io.Writer
	// todos and memorySync are set when the todo and memory tools are on.
	todos      func() []compress.Todo
	memorySync func(context.Context) error
	store      *session.Store
	redact     func(string) string
	closers    []func() error
}

func (r *runtime) Close() {
	for i := len(r.closers) - 1; i >= 0; i-- {
		_ = r.closers[i]()
	}
}

// setupError is a configuration problem: exit status 2.
type setupError struct{ err error }

func (e *setupError) Error() string { return e.err.Error() }
func (e *setupError) Unwrap() error { return e.err }

// loadConfig reads HERMES_HOME's .env and config.yaml and applies flags.
func loadConfig(e *env, f *runFlags) (*config.Config, func(string) string, error) {
	home := config.Home(e.getenv)
	dot, err := config.LoadDotEnv(filepath.Join(home, ".env"))
	if err != nil {
		return nil, nil, &setupError{err}
	}
	getenv := func(k string) string {
		if v := e.getenv(k); v != "" {
			return v
		}
		return dot[k]
	}
	cfg, err := config.Load(home, getenv)
	if err != nil {
		return nil, nil, &setupError{err}
	}
	for _, w := range cfg.Warnings {
		fmt.Fprintln(e.stderr, "hermes: warning:", w)
	}
	if f.provider != "" {
		cfg.Provider = f.provider
	}
	if f.baseURL != "" {
		cfg.BaseURL = f.baseURL
	}
	if f.apiKey != "" {
		cfg.APIKey = f.apiKey
	}
	if f.model != "" {
		cfg.Model.Name = f.model
	}
	if f.apiMode != "" {
		cfg.APIMode = f.apiMode
	}
	if f.maxTurns > 0 {
		cfg.Agent.MaxTurns = f.maxTurns
	}
	if f.effort != "" {
		cfg.Agent.ReasoningEffort = f.effort
	}
	if l := f.toolsetList(); l != nil {
		cfg.Toolsets = l
	}
	return cfg, getenv, nil
}

func providerConfig(cfg *config.Config) provider.Config {
	pc := provider.Config{
		Provider: cfg.Provider, Model: cfg.Model.Name, BaseURL: cfg.BaseURL, APIKey: cfg.APIKey,
		APIMode: cfg.APIMode, ContextLength: cfg.Model.ContextLength,
		Providers: map[string]provider.ProviderConfig{},
		Auxiliary: map[string]provider.AuxConfig{},
	}
	for id, p := range cfg.Providers {
		pc.Providers[id] = provider.ProviderConfig{BaseURL: p.BaseURL, KeyEnv: p.KeyEnv, KeyCmd: p.KeyCmd,
			APIMode: p.APIMode, RequestTimeout: config.Seconds(p.RequestTimeout)}
	}
	pc.FallbackProviders = fallbackEntries(cfg.FallbackProviders)
	for task, a := range cfg.Auxiliary {
		pc.Auxiliary[task] = provider.AuxConfig{Provider: a.Provider, Model: a.Model, BaseURL: a.BaseURL,
			APIMode: a.APIMode, Timeout: config.Seconds(a.Timeout), FallbackProviders: fallbackEntries(a.FallbackProviders)}
	}
	return pc
}

func fallbackEntries(in []config.FallbackProvider) []provider.FallbackEntry {
	var out []provider.FallbackEntry
	for _, f := range in {
		out = append(out, provider.FallbackEntry{Provider: f.Provider, Model: f.Model, BaseURL: f.BaseURL, KeyEnv: f.KeyEnv, APIMode: f.APIMode})
	}
	return out
}

// buildOptions are what differs between surfaces.
type buildOptions struct {
	interactive bool // a user can answer approvals and clarify questions
	source      string
}

// build resolves the provider chain, the tools and the agent.
func build(ctx context.Context, e *env, f *runFlags, bo buildOptions) (*runtime, error) {
	cfg, getenv, err := loadConfig(e, f)
	if err != nil {
		return nil, err
	}
	rt := &runtime{cfg: cfg, home: cfg.Home, obs: &observers{}, stderr: e.stderr}
	if bo.interactive {
		rt.lines = newLineReader(e.stdin, e.stderr)
	}
	if *cfg.Security.RedactSecrets {
		rt.redact = redact.String
	}
	resolver := provider.Resolver{Getenv: getenv}
	pcfg, found, err := resolver.Discover(ctx, providerConfig(cfg))
	if err != nil {
		return nil, &setupError{err}
	}
	if found != nil {
		fmt.Fprintln(e.stderr, "hermes:", found)
	}
	entries, problems, err := resolver.Chain(ctx, pcfg)
	if err != nil {
		return nil, &setupError{err}
	}
	for _, p := range problems {
		fmt.Fprintln(e.stderr, "hermes: warning: fallback provider skipped:", p)
	}
	rt.endpoint = entries[0]

	rt.entries, rt.resolver, rt.noStream = entries, resolver, f.noStream
	var a *agent.Agent
	chain, err := rt.newChain(func(ev provider.FallbackEvent) {
		if a != nil {
			a.SwitchModel(ev.To.Model, ev.To.Provider)
		}
	})
	if err != nil {
		return nil, &setupError{err}
	}

	st, err := openStore(rt.home, rt.redact)
	if err != nil {
		return nil, err
	}
	rt.store = st
	rt.closers = append(rt.closers, st.Close)
	sess, history, storedPrompt, err := rt.resumeOrNew(ctx, f, bo)
	if err != nil {
		return nil, err
	}
	reg, err := rt.buildTools(bo)
	if err != nil {
		return nil, err
	}
	rt.approver = rt.newApprover(f, bo)
	pre, post, err := rt.hooks()
	if err != nil {
		return nil, err
	}

	effort := cfg.Agent.ReasoningEffort
	if effort != "" {
		if effort, err = provider.ParseReasoningEffort(effort); err != nil {
			return nil, &setupError{err}
		}
	}
	var cache *llm.CacheOptions
	if rt.endpoint.APIMode == llm.AnthropicMessages || strings.Contains(strings.ToLower(rt.endpoint.Model), "claude") {
		ttl := cfg.PromptCaching.CacheTTL
		switch ttl {
		case "5m", "1h":
		case "auto":
			ttl = "1h" // a person is at the keyboard: turns come minutes apart
		default:
			return nil, &setupError{fmt.Errorf("prompt_caching.cache_ttl: %q is not 5m, 1h or auto", ttl)}
		}
		cache = &llm.CacheOptions{TTL: ttl}
	}
	acfg := agent.Config{
		Client:                 chain,
		Model:                  rt.endpoint.Model,
		Provider:               rt.endpoint.Provider,
		APIMode:                rt.endpoint.APIMode,
		Tools:                  reg,
		MaxIterations:          cfg.Agent.MaxTurns,
		ToolPoolSize:           cfg.Agent.ToolPoolSize,
		BudgetWarnings:         cfg.Agent.BudgetWarnings,
		KeepPartialOnInterrupt: cfg.Agent.KeepPartialOnInterrupt,
		MaxTokens:              cfg.Agent.MaxTokens,
		ReasoningEffort:        effort,
		Cache:                  cache,
		ToolTimeout:            config.Seconds(cfg.Agent.ToolTimeout),
		SpillDir:               filepath.Join(os.TempDir(), "hermes-tool-output"),
		GuardrailWarnAfter:     cfg.Guardrails.WarnAfter,
		GuardrailHaltAfter:     cfg.Guardrails.HaltAfter,
		Observer:               rt.obs.emit,
		Approver:               rt.approver,
		PreHooks:               pre,
		PostHooks:              post,
		Redact:                 rt.redact,
	}
	acfg.Store = agentStore{st}
	acfg.Session = sess
	acfg.NewSessionID = func() string { return session.NewID(time.Now) }
	if err := rt.wireCompression(ctx, &acfg, pcfg); err != nil {
		return nil, err
	}
	if err := rt.wireAgentTools(ctx, &acfg, f, bo); err != nil {
		return nil, err
	}
	if rt.toolsetEnabled("delegation") {
		acfg.AgentTools = append(acfg.AgentTools, rt.delegateTool(acfg))
	}
	a = agent.New(acfg)
	rt.agent = a
	if history != nil {
		a.SetHistory(history, storedPrompt)
	}
	return rt, nil
}

// buildTools registers the built-in tools, filtered by toolsets.
func (rt *runtime) buildTools(bo buildOptions) (*tool.Registry, error) {
	cfg := rt.cfg
	reg := &tool.Registry{}
	term := terminal.New(terminal.Options{
		Timeout:   config.Seconds(cfg.Terminal.Timeout),
		MaxOutput: cfg.Terminal.MaxOutput,
		Redact:    rt.redact,
	})
	rt.closers = append(rt.closers, term.Close)
	files := file.New(file.Options{Workdir: term.Workdir, Redact: rt.redact})
	for _, t := range append(term.Tools(), files.All()...) {
		if err := reg.Register(t); err != nil {
			return nil, err
		}
	}
	if len(cfg.Toolsets) > 0 {
		reg = reg.Filter(cfg.Toolsets)
	}
	return reg, nil
}

// toolsetEnabled reports whether --toolsets / toolsets allows a toolset.
func (rt *runtime) toolsetEnabled(name string) bool {
	if len(rt.cfg.Toolsets) == 0 {
		return true
	}
	for _, t := range rt.cfg.Toolsets {
		if t == name || t == "all" {
			return true
		}
	}
	return false
}

// exitFor maps a setup error or a result to an exit status.
func exitFor(err error) int {
	var se *setupError
	if errors.As(err, &se) {
		return exitUsage
	}
	return exitFailed
}

// resumeOrNew picks the session: --resume / --continue load a stored one
// (its history, and its system prompt when it was built for the same model
// and provider, so the prompt cache still hits); otherwise a new id.
func (rt *runtime) resumeOrNew(ctx context.Context, f *runFlags, bo buildOptions) (agent.SessionMeta, []llm.Message, string, error) {
	ref := f.resume
	if f.cont && ref == "" {
		ref = "latest"
	}
	source := bo.source
	if source == "" {
		source = "cli"
	}
	if ref == "" {
		return agent.SessionMeta{ID: session.NewID(time.Now), Source: source}, nil, "", nil
	}
	s, err := rt.store.Resolve(ctx, ref)
	if err != nil {
		return agent.SessionMeta{}, nil, "", &setupError{fmt.Errorf("resume %q: %w", ref, err)}
	}
	msgs, err := rt.store.Messages(ctx, s.ID)
	if err != nil {
		return agent.SessionMeta{}, nil, "", fmt.Errorf("resume %s: %w", s.ID, err)
	}
	stored := s.SystemPrompt
	if stored != "" && !prompt.IdentityMatches(stored, rt.endpoint.Model, rt.endpoint.Provider) {
		stored = "" // built for another model or provider: rebuild it
	}
	if err := rt.store.Reopen(ctx, s.ID); err != nil {
		return agent.SessionMeta{}, nil, "", fmt.Errorf("resume %s: %w", s.ID, err)
	}
	if msgs == nil {
		msgs = []llm.Message{}
	}
	return agent.SessionMeta{ID: s.ID, Source: s.Source, ParentID: s.ParentID}, msgs, stored, nil
}
