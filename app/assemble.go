package app

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"

	"github.com/hermes-go/hermes/agent"
	"github.com/hermes-go/hermes/compress"
	"github.com/hermes-go/hermes/llm"
	"github.com/hermes-go/hermes/llm/modelinfo"
	"github.com/hermes-go/hermes/memory"
	"github.com/hermes-go/hermes/prompt"
	"github.com/hermes-go/hermes/provider"
	"github.com/hermes-go/hermes/sandbox"
	"github.com/hermes-go/hermes/session"
	"github.com/hermes-go/hermes/tool"
)

// The parts fit each other as they are, without adapters.
var (
	_ agent.Store            = (*session.Store)(nil)
	_ agent.SessionEnder     = (*session.Store)(nil)
	_ agent.SessionContinuer = (*session.Store)(nil)
	_ agent.Compressor       = (*compress.Compressor)(nil)
	_ agent.Router           = (*provider.Chain)(nil)
)

// assemble builds the shared parts, in the order that lets slow ones
// overlap: MCP servers start first; without them the sandbox policy (a
// scan of the temporary directories) is made while the store opens.
func (rt *Runtime) assemble(ctx context.Context) error {
	rt.tools = &tool.Registry{}
	// The default workspace's policy serves the MCP servers too: one
	// policy (and one scan of the temporary directories) for both, and
	// one sandbox helper that forks the terminal's commands and the
	// servers alike. It is closed last, after both.
	made := make(chan struct{})
	var policy sandbox.Policy
	var runner *sandbox.Runner
	var policyErr error
	go func() {
		defer close(made)
		if policy, policyErr = SandboxPolicy(rt.cfg, rt.workdir, rt.opts.Getenv); policyErr == nil {
			runner = newRunner(policy)
		}
	}()
	rt.closers = append(rt.closers, func() error {
		<-made
		if runner == nil {
			return nil
		}
		return runner.Close()
	})
	startMCP := func() error {
		if <-made; policyErr != nil {
			return policyErr
		}
		return rt.startMCP(policy, runner)
	}
	servers := len(rt.cfg.MCPServers) > 0
	if servers {
		if err := startMCP(); err != nil {
			return err
		}
	}
	if err := rt.resolveProviders(ctx); err != nil {
		return err
	}
	if err := rt.openStore(); err != nil {
		return err
	}
	if !servers {
		if err := startMCP(); err != nil {
			return err
		}
	}
	if effort := rt.cfg.Agent.ReasoningEffort; effort != "" {
		var err error
		if rt.effort, err = provider.ParseReasoningEffort(effort); err != nil {
			return configErr(err)
		}
	}
	if _, err := rt.cacheOptions(rt.entries[0]); err != nil {
		return err
	}
	rt.openContexts()
	rt.openMemory()
	if err := rt.buildTools(ctx); err != nil {
		return err
	}
	if err := rt.buildSummarizer(ctx); err != nil {
		return err
	}
	ws, err := rt.workspaceWith(rt.workdir, policy, runner)
	if err != nil {
		return err
	}
	rt.workspace = ws
	rt.closers = append(rt.closers, ws.Close)
	return nil
}

// resolveProviders turns the configuration into the primary endpoint and
// its fallbacks. With provider auto and no key, a local OpenAI-compatible
// server on its usual port is looked for (provider.Resolver.Discover).
func (rt *Runtime) resolveProviders(ctx context.Context) error {
	pools, err := loadPools(ctx, rt.cfg, providerConfig(rt.cfg), rt.getenv, rt.opts.Now, rt.warn)
	if err != nil {
		return configErr(err)
	}
	for _, p := range pools {
		rt.addPoolKeys(p)
	}
	rt.resolver = provider.Resolver{Getenv: rt.getenv, RunKeyCmd: rt.runKeyCmd, Pools: pools}
	pcfg, found, err := rt.resolver.Discover(ctx, providerConfig(rt.cfg))
	if err != nil {
		return configErr(err)
	}
	rt.found = found
	rt.pcfg = pcfg
	entries, problems, err := rt.resolver.Chain(ctx, pcfg)
	if err != nil {
		return configErr(err)
	}
	for _, p := range problems {
		rt.warn("fallback provider skipped: " + p.Error())
	}
	rt.entries = entries
	rt.addKeys(entries)
	return nil
}

// openStore opens HERMES_HOME/state.db. Its errors name the file; one
// that cannot be written (HERMES_HOME read-only) is a setup problem.
func (rt *Runtime) openStore() error {
	st, err := session.Open(filepath.Join(rt.cfg.Home, "state.db"), session.Options{Redact: rt.redact, Now: rt.opts.Now})
	if errors.Is(err, session.ErrReadOnly) {
		return configErr(err)
	}
	if err != nil {
		return err
	}
	rt.store = st
	rt.closers = append(rt.closers, st.Close)
	return nil
}

// openContexts reads the context limits learned from overflow errors;
// an unreadable file is a warning and nothing is learned.
func (rt *Runtime) openContexts() {
	cache, err := provider.OpenContextCache(filepath.Join(rt.cfg.Home, "context_lengths.json"))
	if err != nil {
		rt.warn(err.Error())
		return
	}
	rt.contexts = cache
}

// contextWindow is ep's context window: configured, learned, or known.
func (rt *Runtime) contextWindow(ep provider.Endpoint) int {
	return provider.ContextWindow(ep, rt.contexts)
}

// learnContextLimit records a context window an overflow error revealed,
// under the endpoint that answered.
func (rt *Runtime) learnContextLimit(ep provider.Endpoint, limit int) error {
	if rt.contexts == nil {
		return nil
	}
	return rt.contexts.Learn(ep.Model, ep.BaseURL, limit)
}

// openMemory opens the memory files, unless the memory toolset is off.
// Unreadable files are kept as they are and conversations run without
// memory.
func (rt *Runtime) openMemory() {
	if !toolsetEnabled(rt.cfg, "memory") {
		return
	}
	m, err := memory.Open(memory.Options{Dir: memory.Dir(rt.cfg.Home)})
	if err != nil {
		rt.warn(fmt.Sprintf("memory disabled: %v", err))
		return
	}
	rt.memory = m
}

// buildTools registers the shared tools: skills, web and vision (filtered
// by the toolsets setting), then the embedder's own, in the registry the
// MCP servers add theirs to. The terminal and file tools are bound to a
// workspace (workspace.go).
func (rt *Runtime) buildTools(ctx context.Context) error {
	cfg := rt.cfg
	rt.openSkills()
	reg := &tool.Registry{}
	if err := registerAll(reg, rt.skills.Tools()...); err != nil {
		return err
	}
	webTools, err := rt.webTools(ctx)
	if err != nil {
		return err
	}
	if err := registerAll(reg, webTools...); err != nil {
		return err
	}
	known := append(workspaceToolsets(), mcpToolsets(cfg)...)
	for _, t := range rt.opts.Tools {
		known = append(known, t.Spec().Toolset)
	}
	if err := checkToolsets(cfg.Toolsets, reg, known...); err != nil {
		return err
	}
	reg = reg.Filter(cfg.Toolsets)
	if err := registerAll(reg, rt.opts.Tools...); err != nil {
		return err
	}
	for _, n := range reg.Names() {
		t, _ := reg.Get(n)
		if err := registerAll(rt.tools, t); err != nil {
			return err
		}
	}
	return nil
}

// buildSummarizer makes the auxiliary.compression chain that writes the
// summaries of every conversation's compressions.
func (rt *Runtime) buildSummarizer(ctx context.Context) error {
	if c := rt.cfg.Compression.Enabled; c != nil && !*c {
		return nil
	}
	summarizer, problems, err := provider.NewAuxiliary(ctx, provider.TaskCompression, rt.pcfg, provider.ChainOptions{
		Factory: rt.factory(), Resolver: rt.resolver, Transport: rt.transportOptions(), Now: rt.opts.Now,
	})
	for _, p := range problems {
		rt.warn("auxiliary compression: " + p.Error())
	}
	if err != nil {
		return configErr(err)
	}
	rt.summarizer = rt.meter.wrap(provider.TaskCompression, summarizer)
	rt.summarizerModel = summarizer.Current().Model
	return nil
}

// chainOver builds a provider chain over entries, the primary first.
// Every agent (each conversation's and each subagent's) gets its own, so
// a fallback in one never moves another. The chain owns the fallback
// state and reports retries and switches in the stream, where the agent
// turns them into events; a switch rewrites the system prompt's model
// lines for the model that answers.
func (rt *Runtime) chainOver(entries []provider.Endpoint) (*provider.Chain, error) {
	return provider.NewChain(entries, provider.ChainOptions{
		Factory:       rt.factory(),
		Transport:     rt.transportOptions(),
		MaxRetries:    chainRetries(rt.cfg.Agent.APIMaxRetries),
		Resolver:      rt.resolver,
		StaleTimeout:  provider.DefaultStaleTimeout,
		Now:           rt.opts.Now,
		RewriteSystem: prompt.RewriteIdentity,
	})
}

// chainRetries maps agent.api_max_retries onto ChainOptions.MaxRetries,
// where 0 is the default and a negative value none.
func chainRetries(n *int) int {
	switch {
	case n == nil:
		return 0
	case *n <= 0:
		return -1
	}
	return *n
}

// cacheOptions asks for prompt-caching markers on models that cache
// prompts (Claude's).
func (rt *Runtime) cacheOptions(ep provider.Endpoint) (*llm.CacheOptions, error) {
	if !cachesPrompts(ep) {
		return nil, nil
	}
	ttl := rt.cfg.PromptCaching.CacheTTL
	switch ttl {
	case "5m", "1h":
	case "auto", "":
		ttl = "1h" // a person is at the keyboard: turns come minutes apart
	default:
		return nil, configErr(fmt.Errorf("prompt_caching.cache_ttl: %q is not 5m, 1h or auto", ttl))
	}
	return &llm.CacheOptions{TTL: ttl}, nil
}

// registerAll adds tools to reg.
func registerAll(reg *tool.Registry, tools ...tool.Tool) error {
	for _, t := range tools {
		if err := reg.Register(t); err != nil {
			return configErr(err)
		}
	}
	return nil
}

// cachesPrompts reports whether ep's model caches prompts when asked
// (the Anthropic API's, and models the table says cache, on any API).
func cachesPrompts(ep provider.Endpoint) bool {
	return ep.APIMode == llm.AnthropicMessages || modelinfo.Lookup(ep.Model).PromptCaching
}
