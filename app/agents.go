package app

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"

	"github.com/hermes-go/hermes/agent"
	"github.com/hermes-go/hermes/config"
	"github.com/hermes-go/hermes/llm"
	"github.com/hermes-go/hermes/provider"
	"github.com/hermes-go/hermes/sandbox"
	"github.com/hermes-go/hermes/tool"
	"github.com/hermes-go/hermes/tool/approval"
	"github.com/hermes-go/hermes/tools/clarify"
	"github.com/hermes-go/hermes/tools/todo"
)

// AgentOptions describe one conversation's agent made by NewAgent. The
// zero value is a new session in the runtime's workspace that nobody
// attends: dangerous commands are denied.
type AgentOptions struct {
	// Resume continues a stored session: its id, its title, or "latest".
	// Empty starts a new session.
	Resume string
	// SessionID is the id a new session gets (default a fresh one), for
	// a surface that names the session before its first turn.
	SessionID string
	// Source names the surface in a new session (default Options.Source).
	Source string
	// Platform is the platform hint of the system prompt (default
	// Options.Platform).
	Platform string
	// Workdir is the conversation's workspace (default the runtime's). A
	// different one gets its own sandbox, terminal and file tools.
	Workdir string
	// Sandbox overrides sandbox.mode for this agent (read-only,
	// workspace-write, full-access); empty keeps the configured mode.
	Sandbox string
	// Workspace, when set, is where the agent works (Workdir and Sandbox
	// are then ignored): one kept across a conversation's turns.
	Workspace *Workspace
	// SystemPrompt is added to the built system prompt of a new session
	// (a client's own system message); a resumed session keeps the prompt
	// it was built with.
	SystemPrompt string

	// Approve asks a person about a dangerous command; nil denies it with
	// Unattended as the reason the model reads (or the approval policy's
	// own text when Unattended is empty).
	Approve func(ctx context.Context, p approval.Prompt) (approval.Choice, error)
	// Unattended explains to the model why nobody can approve a command.
	Unattended string
	// Clarify answers the clarify tool; nil tells the model nobody can.
	Clarify clarify.Ask
	// Yolo runs dangerous commands without asking (hardline commands are
	// refused either way; the sandbox stays).
	Yolo bool

	// Observer receives the agent's events (Runtime.Observe's observers
	// do not: they belong to the runtime's own agent).
	Observer agent.Observer
}

// Agent is one conversation's agent over the runtime's shared parts. It
// holds its session (and any a compression continues in) until Close.
// Its methods are those of agent.Agent, plus what a surface changes
// between turns.
type Agent struct {
	*agent.Agent
	approver   *approval.Approver
	todos      *todo.Store
	compressor agent.Compressor

	mu      sync.Mutex
	closers []func() error
	locks   []func() error
	closed  bool
}

// Todos is the conversation's task list as the todo tool left it.
func (a *Agent) Todos() todo.State { return a.todos.Get() }

// SetYolo turns approvals off (on) or back on for this agent only.
func (a *Agent) SetYolo(on bool) { a.approver.SetYolo(on) }

// CompressOver compresses the history before a turn when, with its
// system prompt, it holds more than fraction of the context window: the
// gateway's rule (compress.GatewayThreshold) for conversations that grew between turns, on
// top of the loop's own preflight at compression.threshold. It reports
// whether it compressed; like Agent.Compress, it may not run during a
// turn.
func (a *Agent) CompressOver(ctx context.Context, fraction float64) (bool, error) {
	window := a.ContextLength()
	if a.compressor == nil || window <= 0 {
		return false, nil
	}
	msgs := a.History()
	if len(msgs) < 4 {
		return false, nil // nothing between the kept head and tail
	}
	if p := a.SystemPromptText(); p != "" {
		msgs = append([]llm.Message{llm.System(p)}, msgs...)
	}
	if tokens := a.compressor.EstimateTokens(msgs, nil); float64(tokens) <= fraction*float64(window) {
		return false, nil
	}
	return true, a.Compress(ctx, "")
}

// Close releases the sessions the agent holds and the processes its own
// tools started. It waits for nothing: call it after the last turn.
func (a *Agent) Close() error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.closed {
		return nil
	}
	a.closed = true
	var errs []error
	for i := len(a.closers) - 1; i >= 0; i-- {
		errs = append(errs, a.closers[i]())
	}
	for _, release := range a.locks {
		errs = append(errs, release())
	}
	a.closers, a.locks = nil, nil
	return errors.Join(errs...)
}

func (a *Agent) hold(rt *Runtime) func(ctx context.Context, id string) error {
	return func(ctx context.Context, id string) error {
		release, err := rt.store.Acquire(ctx, id)
		if err != nil {
			return err
		}
		a.mu.Lock()
		a.locks = append(a.locks, release)
		a.mu.Unlock()
		return nil
	}
}

// NewAgent makes an agent for one conversation from the parts the runtime
// already holds: one session store, one provider configuration (each
// agent gets its own chain, so a fallback in one moves no other), the
// built-in tools and hooks, memory. Only what is the conversation's own
// is made: its session, task list, approval policy, and, for another
// workspace or sandbox mode, the sandbox and the tools bound to it. It
// is cheap enough to call for every request of a server, so that no
// agent, and no transcript, outlives its turn: the next turn resumes the
// session from the store.
//
// Resuming a session another agent holds is a *ConfigError for
// session.ErrBusy. NewAgent is safe for concurrent use.
func (rt *Runtime) NewAgent(ctx context.Context, o AgentOptions) (*Agent, error) {
	a := &Agent{}
	b := &agentBuild{
		resume:   o.Resume,
		newID:    o.SessionID,
		source:   cmpOr(o.Source, rt.opts.Source),
		platform: cmpOr(o.Platform, rt.opts.Platform),
		extra:    o.SystemPrompt,
		workdir:  rt.workdir,
		policy:   &rt.policy,
		reg:      rt.shared.reg,
		pre:      rt.shared.pre,
		ask:      o.Approve,
		clarify:  o.Clarify,
		yolo:     o.Yolo,
		observer: o.Observer,
		hold:     a.hold(rt),
		fresh:    true,
	}
	if o.Approve == nil && o.Unattended != "" {
		reason := o.Unattended
		b.ask = func(context.Context, approval.Prompt) (approval.Choice, error) {
			return approval.Deny, errors.New(reason)
		}
	}
	var warnTo *agent.Agent
	b.warn = func(s string) {
		if warnTo != nil {
			warnTo.Notify(agent.Event{Kind: agent.EventWarning, Time: rt.opts.Now(), Text: s})
		}
	}
	ok := false
	defer func() {
		if !ok {
			a.mu.Lock()
			a.closers = append(a.closers, b.closers...)
			a.mu.Unlock()
			a.Close()
		}
	}()
	if err := rt.ownWorkspace(b, o); err != nil {
		return nil, err
	}
	ag, err := rt.assemble(ctx, b)
	if err != nil {
		return nil, err
	}
	warnTo = ag
	a.Agent, a.approver, a.todos, a.compressor = ag, b.approver, b.todos, b.compressor
	a.closers = b.closers
	ok = true
	return a, nil
}

// ownWorkspace puts an agent in its workspace: the one given, or, for
// another directory or sandbox mode than the runtime's, one of its own
// that closes with it.
func (rt *Runtime) ownWorkspace(b *agentBuild, o AgentOptions) error {
	ws := o.Workspace
	if ws == nil {
		if (o.Workdir == "" || o.Workdir == rt.workdir) && (o.Sandbox == "" || o.Sandbox == rt.cfg.Sandbox.Mode) {
			return nil
		}
		var err error
		if ws, err = rt.NewWorkspace(o.Workdir, o.Sandbox); err != nil {
			return err
		}
		b.closers = append(b.closers, ws.Close)
	}
	b.workdir, b.policy, b.reg, b.pre = ws.workdir, &ws.policy, ws.reg, ws.pre
	ws.setWarn(b.warn)
	b.closers = append(b.closers, func() error { ws.setWarn(nil); return nil })
	return nil
}

// Workspace is a directory with its sandbox and the tools bound to it:
// the terminal (and the background processes it started), the file
// tools, checkpoints. A surface that keeps a conversation in one
// workspace across turns (ACP) makes one with NewWorkspace and passes it
// in AgentOptions, so background processes outlive a turn; Close ends
// them.
type Workspace struct {
	workdir string
	policy  sandbox.Policy
	reg     *tool.Registry
	pre     []tool.PreHook
	closers []func() error

	mu   sync.Mutex
	warn func(string) // the agent working in it now
}

// NewWorkspace makes a workspace in workdir (default the runtime's) under
// sandbox mode mode (default sandbox.mode).
func (rt *Runtime) NewWorkspace(workdir, mode string) (*Workspace, error) {
	cfg := *rt.cfg
	if mode != "" {
		if _, err := sandbox.ParseMode(mode); err != nil {
			return nil, configErr(fmt.Errorf("sandbox: %w", err))
		}
		cfg.Sandbox.Mode = mode
	}
	ws := &Workspace{workdir: cmpOr(workdir, rt.workdir)}
	p, err := SandboxPolicy(&cfg, ws.workdir, rt.opts.Getenv)
	if err != nil {
		return nil, err
	}
	ws.policy = p
	reg, closers, err := rt.toolsIn(ws.workdir, &ws.policy)
	ws.closers = closers
	if err != nil {
		ws.Close()
		return nil, err
	}
	ws.reg = reg
	ws.pre = slices.Clone(rt.shared.shell)
	if h := rt.checkpointHookIn(ws.policy.Workspace, ws.warning); h != nil {
		ws.pre = append(ws.pre, h)
	}
	return ws, nil
}

// Workdir is the workspace's directory.
func (w *Workspace) Workdir() string { return w.workdir }

// Close ends the background processes its terminal started.
func (w *Workspace) Close() error {
	var errs []error
	for i := len(w.closers) - 1; i >= 0; i-- {
		errs = append(errs, w.closers[i]())
	}
	w.closers = nil
	return errors.Join(errs...)
}

func (w *Workspace) setWarn(f func(string)) {
	w.mu.Lock()
	w.warn = f
	w.mu.Unlock()
}

// warning reaches the agent working in the workspace, if any.
func (w *Workspace) warning(s string) {
	w.mu.Lock()
	f := w.warn
	w.mu.Unlock()
	if f != nil {
		f(s)
	}
}

// agentBuild is what differs between the agents of one runtime while
// one is assembled.
type agentBuild struct {
	resume, newID, source, platform, extra string

	workdir string
	policy  *sandbox.Policy
	reg     *tool.Registry
	pre     []tool.PreHook

	ask      func(ctx context.Context, p approval.Prompt) (approval.Choice, error)
	clarify  clarify.Ask
	yolo     bool
	observer agent.Observer
	warn     func(string)
	// hold makes the agent the one writer of a session until it closes.
	hold func(ctx context.Context, id string) error
	// fresh re-reads memory for a new session's prompt: in a long-lived
	// process the files change between sessions.
	fresh bool

	approver   *approval.Approver
	todos      *todo.Store
	compressor agent.Compressor
	closers    []func() error
}

// sharedParts are built once per runtime and used by all its agents.
type sharedParts struct {
	reg    *tool.Registry
	shell  []tool.PreHook // shell hooks only
	pre    []tool.PreHook // shell hooks and the workspace's checkpoint hook
	post   []tool.PostHook
	effort string
	cache  *llm.CacheOptions
	window *provider.ContextCache

	alwaysMu sync.Mutex
	always   []string // keys approved "always" since the runtime started
}

// buildShared builds the parts every agent of the runtime shares.
func (rt *Runtime) buildShared() error {
	s := &rt.shared
	reg, closers, err := rt.toolsIn(rt.workdir, &rt.policy)
	rt.closers = append(rt.closers, closers...)
	if err != nil {
		return err
	}
	s.reg = reg
	pre, post, err := rt.hooks()
	if err != nil {
		return err
	}
	s.shell, s.post = pre, post
	s.pre = slices.Clone(pre)
	if h := rt.checkpointHook(); h != nil {
		s.pre = append(s.pre, h)
	}
	if e := rt.cfg.Agent.ReasoningEffort; e != "" {
		if s.effort, err = provider.ParseReasoningEffort(e); err != nil {
			return configErr(err)
		}
	}
	if s.cache, err = rt.cacheOptions(); err != nil {
		return err
	}
	rt.openMemory()
	return nil
}

// assemble builds one agent over the shared parts.
func (rt *Runtime) assemble(ctx context.Context, b *agentBuild) (*agent.Agent, error) {
	cfg := rt.cfg
	chain, err := rt.newChain()
	if err != nil {
		return nil, configErr(err)
	}
	sess, history, storedPrompt, err := rt.resumeOrNew(ctx, b)
	if err != nil {
		return nil, err
	}
	b.approver = rt.newApprover(b)
	acfg := agent.Config{
		Client:                 chain,
		Model:                  rt.endpoint.Model,
		Provider:               rt.endpoint.Provider,
		APIMode:                rt.endpoint.APIMode,
		Tools:                  b.reg,
		MaxIterations:          cfg.Agent.MaxTurns,
		ToolPoolSize:           cfg.Agent.ToolPoolSize,
		BudgetWarnings:         cfg.Agent.BudgetWarnings,
		KeepPartialOnInterrupt: cfg.Agent.KeepPartialOnInterrupt,
		MaxTokens:              cfg.Agent.MaxTokens,
		ReasoningEffort:        rt.shared.effort,
		Cache:                  rt.shared.cache,
		ToolTimeout:            config.Seconds(cfg.Agent.ToolTimeout),
		SpillDir:               spillDir(),
		GuardrailWarnAfter:     cfg.Guardrails.WarnAfter,
		GuardrailHaltAfter:     cfg.Guardrails.HaltAfter,
		Observer:               b.observer,
		Approver:               b.approver,
		PreHooks:               b.pre,
		PostHooks:              rt.shared.post,
		Redact:                 rt.redact,
		Store:                  rt.store,
		Session:                sess,
		NewSessionID: func() string {
			id := rt.newSessionID()
			if err := b.hold(context.Background(), id); err != nil {
				b.warn(fmt.Sprintf("session store: %v", err))
			}
			return id
		},
		Now: rt.opts.Now,
	}
	b.todos = &todo.Store{}
	if history != nil { // a new session has no task list yet
		b.todos = rt.loadTodos(ctx, sess.ID, b.warn)
	}
	if err := rt.wireCompression(ctx, &acfg, b); err != nil {
		return nil, err
	}
	b.compressor = acfg.Compressor
	rt.wireAgentTools(&acfg, b)
	if toolsetEnabled(cfg, "delegation") {
		acfg.AgentTools = append(acfg.AgentTools, rt.delegateTool(acfg, b.workdir))
	}
	a := agent.New(acfg)
	if history != nil {
		a.SetHistory(history, storedPrompt)
	}
	return a, nil
}

// rememberAlways keeps a key approved "always" for the runtime's later
// agents, which were built from the configuration read at start.
func (rt *Runtime) rememberAlways(key string) {
	rt.shared.alwaysMu.Lock()
	rt.shared.always = append(rt.shared.always, key)
	rt.shared.alwaysMu.Unlock()
}

func (rt *Runtime) allowlist() []string {
	rt.shared.alwaysMu.Lock()
	defer rt.shared.alwaysMu.Unlock()
	return append(slices.Clone(rt.cfg.CommandAllowlist), rt.shared.always...)
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}
