package app

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/hermes-go/hermes/agent"
	"github.com/hermes-go/hermes/compress"
	"github.com/hermes-go/hermes/config"
	"github.com/hermes-go/hermes/llm"
	"github.com/hermes-go/hermes/llm/modelinfo"
	"github.com/hermes-go/hermes/prompt"
	"github.com/hermes-go/hermes/provider"
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

// buildAgent assembles the agent over the resolved providers and the
// opened store.
func (rt *Runtime) buildAgent(ctx context.Context) error {
	cfg := rt.cfg
	chain, err := rt.newChain()
	if err != nil {
		return configErr(err)
	}
	sess, history, storedPrompt, err := rt.resumeOrNew(ctx)
	if err != nil {
		return err
	}
	reg, err := rt.buildTools(ctx)
	if err != nil {
		return err
	}
	rt.approver = rt.newApprover()
	pre, post, err := rt.hooks()
	if err != nil {
		return err
	}
	if h := rt.checkpointHook(); h != nil {
		pre = append(pre, h)
	}
	effort := cfg.Agent.ReasoningEffort
	if effort != "" {
		if effort, err = provider.ParseReasoningEffort(effort); err != nil {
			return configErr(err)
		}
	}
	cache, err := rt.cacheOptions()
	if err != nil {
		return err
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
		Vision:                 rt.visionOf,
		Store:                  rt.store,
		Session:                sess,
		NewSessionID:           rt.newHeldSessionID,
		Now:                    rt.opts.Now,
	}
	rt.openMemory()
	rt.loadTodos(ctx, sess.ID)
	if err := rt.wireCompression(ctx, &acfg); err != nil {
		return err
	}
	rt.wireAgentTools(&acfg)
	if toolsetEnabled(cfg, "delegation") {
		acfg.AgentTools = append(acfg.AgentTools, rt.delegateTool(acfg))
	}
	rt.acfg = acfg
	rt.agent = agent.New(acfg)
	if history != nil {
		rt.agent.SetHistory(history, storedPrompt)
	}
	return nil
}

// agentModel is the primary model turns go to (a /model switch changes
// it).
func (rt *Runtime) agentModel() (model, provider string) {
	rt.modelMu.Lock()
	defer rt.modelMu.Unlock()
	return rt.endpoint.Model, rt.endpoint.Provider
}

func (rt *Runtime) newSessionID() string { return session.NewID(rt.opts.Now) }

// hold makes this runtime the one writer of session id until Close
// (session.Store.Acquire).
func (rt *Runtime) hold(ctx context.Context, id string) error {
	release, err := rt.store.Acquire(ctx, id)
	if err != nil {
		return err
	}
	rt.locksMu.Lock()
	if rt.locks == nil {
		rt.locks = map[string]func() error{}
	}
	if prev := rt.locks[id]; prev != nil {
		prev() // held twice: keep one
	}
	rt.locks[id] = release
	rt.locksMu.Unlock()
	return nil
}

// newHeldSessionID names the child session a compression continues in
// and holds it before it exists, so no other process can resume it
// between its creation and this one's next write.
func (rt *Runtime) newHeldSessionID() string {
	id := rt.newSessionID()
	if err := rt.hold(context.Background(), id); err != nil {
		rt.eventWarning(fmt.Sprintf("session store: %v", err))
	}
	return id
}

// newChain builds a provider chain over the resolved endpoints. Every
// agent (the top one and each subagent) gets its own, so a fallback in
// one never moves another. The chain owns the fallback state and reports
// retries and switches in the stream, where the agent turns them into
// events.
func (rt *Runtime) newChain() (*provider.Chain, error) {
	rt.modelMu.Lock()
	entries := rt.entries
	rt.modelMu.Unlock()
	return rt.chainOver(entries)
}

// chainOver builds a provider chain over entries, the primary first.
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

// cacheOptions asks for prompt-caching markers on Claude models.
func (rt *Runtime) cacheOptions() (*llm.CacheOptions, error) {
	if rt.endpoint.APIMode != llm.AnthropicMessages && !modelinfo.Lookup(rt.endpoint.Model).PromptCaching {
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

// resumeOrNew picks the session: Options.Resume loads a stored one (its
// history, and its system prompt when it was built for the same model and
// provider, so the prompt cache still hits); otherwise a new id.
func (rt *Runtime) resumeOrNew(ctx context.Context) (agent.SessionMeta, []llm.Message, string, error) {
	ref := rt.opts.Resume
	if ref == "" {
		id := rt.newSessionID()
		if err := rt.hold(ctx, id); err != nil {
			return agent.SessionMeta{}, nil, "", err
		}
		return agent.SessionMeta{ID: id, Source: rt.opts.Source, Cwd: rt.workdir}, nil, "", nil
	}
	return rt.loadSession(ctx, ref)
}

// loadSession holds the stored session ref names, reopens it and reads
// its history, and its system prompt when it was built for the same
// model and provider.
func (rt *Runtime) loadSession(ctx context.Context, ref string) (agent.SessionMeta, []llm.Message, string, error) {
	return rt.loadSessionHeld(ctx, ref, rt.hold)
}

// loadSessionHeld is loadSession holding the session with hold (an
// agent of NewAgent holds its own).
func (rt *Runtime) loadSessionHeld(ctx context.Context, ref string, hold func(context.Context, string) error) (agent.SessionMeta, []llm.Message, string, error) {
	s, err := rt.store.Resolve(ctx, ref)
	if err != nil {
		return agent.SessionMeta{}, nil, "", configErr(fmt.Errorf("resume %q: %w", ref, err))
	}
	// Held before anything is read or written: a second process resuming
	// the session is refused rather than interleaving its messages.
	if err := hold(ctx, s.ID); err != nil {
		if errors.Is(err, session.ErrBusy) {
			err = configErr(fmt.Errorf("resume %q: %w", ref, err))
		}
		return agent.SessionMeta{}, nil, "", err
	}
	msgs, err := rt.store.Messages(ctx, s.ID)
	if err != nil {
		return agent.SessionMeta{}, nil, "", fmt.Errorf("resume %s: %w", s.ID, err)
	}
	stored := s.SystemPrompt
	model, prov := rt.agentModel()
	if stored != "" && !prompt.IdentityMatches(stored, model, prov) {
		stored = "" // built for another model or provider: rebuild it
	}
	if len(rt.opts.Skills) > 0 {
		stored = "" // the skills to preload go into a new prompt
	}
	if err := rt.store.Reopen(ctx, s.ID); err != nil {
		return agent.SessionMeta{}, nil, "", fmt.Errorf("resume %s: %w", s.ID, err)
	}
	if msgs == nil {
		msgs = []llm.Message{}
	}
	return agent.SessionMeta{ID: s.ID, Source: s.Source, ParentID: s.ParentID, Model: s.Model, Provider: s.Provider, Cwd: s.Cwd}, msgs, stored, nil
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
