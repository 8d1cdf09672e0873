package app

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/hermes-go/hermes/agent"
	"github.com/hermes-go/hermes/compress"
	"github.com/hermes-go/hermes/llm"
	"github.com/hermes-go/hermes/sandbox"
	"github.com/hermes-go/hermes/tool"
	"github.com/hermes-go/hermes/tool/approval"
	"github.com/hermes-go/hermes/tools/clarify"
	"github.com/hermes-go/hermes/tools/delegate"
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
	// Model puts the conversation on another model than the runtime's
	// (Runtime.Models lists them; "name" or "provider:name" as SwitchModel
	// takes): a model of the chain moves to its front, any other takes
	// the primary's place; the fallbacks stay behind it.
	Model string
	// MCP adds the tools of a conversation's own MCP servers to the
	// configured ones; NewAgent first waits for those still starting, up
	// to mcp_startup_timeout after they started.
	MCP *SessionMCP

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

// SetYolo turns yolo mode on or off for this agent only (a mode an
// editor sets while a turn runs).
func (a *Agent) SetYolo(on bool) { a.approver.SetYolo(on) }

// CompressOver compresses the history before a turn when, with its
// system prompt, it holds more than fraction of the context window: the
// gateway's rule (compress.GatewayThreshold) for conversations that grew
// between turns, on top of the loop's own preflight at
// compression.threshold. It reports whether it compressed; like
// Agent.Compress, it may not run during a turn.
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
// already holds: the agent configuration New assembled (one session
// store, the built-in, skill, web and MCP tools, hooks, memory, the
// compressor), with what is the conversation's own put in: its session,
// its own provider chain (a fallback in one moves no other), task list,
// approval policy, observer, the tools that hold per-conversation state
// (todo, clarify, delegate_task) and, for another workspace or sandbox
// mode, the sandbox and the tools bound to it. It is cheap enough to call
// for every request of a server, so that no agent, and no transcript,
// outlives its turn: the next turn resumes the session from the store.
//
// Resuming a session another agent holds is a *ConfigError for
// session.ErrBusy. NewAgent is safe for concurrent use.
func (rt *Runtime) NewAgent(ctx context.Context, o AgentOptions) (*Agent, error) {
	a := &Agent{}
	var warnTo *agent.Agent
	warn := func(s string) {
		if warnTo != nil {
			warnTo.Notify(agent.Event{Kind: agent.EventWarning, Time: rt.opts.Now(), Text: s})
		}
	}
	ok := false
	defer func() {
		if !ok {
			a.Close()
		}
	}()
	base := rt.acfg
	workdir := rt.workdir
	ws := o.Workspace
	if ws == nil && !((o.Workdir == "" || o.Workdir == rt.workdir) && (o.Sandbox == "" || o.Sandbox == rt.cfg.Sandbox.Mode)) {
		var err error
		if ws, err = rt.NewWorkspace(o.Workdir, o.Sandbox); err != nil {
			return nil, err
		}
		a.closers = append(a.closers, ws.Close)
	}
	if ws != nil {
		if err := ws.sync(); err != nil {
			return nil, configErr(err)
		}
		workdir = ws.workdir
		base.Tools, base.PreHooks = ws.reg, ws.pre
		ws.setWarn(warn)
		a.closers = append(a.closers, func() error { ws.setWarn(nil); return nil })
	}
	if o.MCP != nil {
		o.MCP.Wait(ctx)
		reg, err := o.MCP.over(base.Tools)
		if err != nil {
			return nil, err
		}
		base.Tools = reg
	}
	rt.modelMu.Lock()
	entries := rt.entries
	rt.modelMu.Unlock()
	if o.Model != "" {
		var err error
		if entries, err = rt.entriesFor(ctx, o.Model); err != nil {
			return nil, err
		}
		rt.addKeys(entries[:1])
	}
	chain, err := rt.chainOver(entries)
	if err != nil {
		return nil, configErr(err)
	}
	sess, history, storedPrompt, err := rt.agentSession(ctx, o, workdir, a.hold(rt))
	if err != nil {
		return nil, err
	}
	if o.Model != "" && history != nil && (sess.Model != entries[0].Model || sess.Provider != entries[0].Provider) {
		storedPrompt = "" // it names the model the session was on: built again for this one
	}
	ask := o.Approve
	if ask == nil && o.Unattended != "" {
		reason := o.Unattended
		ask = func(context.Context, approval.Prompt) (approval.Choice, error) {
			return approval.Deny, errors.New(reason)
		}
	}
	a.approver = rt.approverFor(ask, o.Yolo, warn)
	a.todos = &todo.Store{}
	if history != nil { // a new session has no task list yet
		a.todos = rt.readTodos(ctx, sess.ID, warn)
	}

	acfg := base
	acfg.Client = chain
	acfg.Model, acfg.Provider = rt.agentModel()
	if o.Model != "" {
		ep := entries[0]
		acfg.Model, acfg.Provider, acfg.APIMode, acfg.ContextLength = ep.Model, ep.Provider, ep.APIMode, rt.contextWindow(ep)
	}
	acfg.Observer = o.Observer
	acfg.Approver = a.approver
	acfg.Session = sess
	acfg.NewSessionID = func() string {
		id := rt.newSessionID()
		if err := a.hold(rt)(context.Background(), id); err != nil {
			warn(fmt.Sprintf("session store: %v", err))
		}
		return id
	}
	if c, ok := base.Compressor.(*compress.Compressor); ok {
		own := *c
		own.Todos = a.todos.Reminder
		acfg.Compressor = &own
		a.compressor = acfg.Compressor
	}
	acfg.OnCompressed = rt.onCompressed(a.todos)
	rt.conversationTools(&acfg, a.todos, o, workdir, history == nil, warn)
	ag := agent.New(acfg)
	if history != nil {
		ag.SetHistory(history, storedPrompt)
	}
	warnTo = ag
	a.Agent = ag
	ok = true
	return a, nil
}

// agentSession is the session an agent of NewAgent starts in: the one it
// resumes, or a new one (named o.SessionID when given), held with hold.
func (rt *Runtime) agentSession(ctx context.Context, o AgentOptions, workdir string, hold func(context.Context, string) error) (agent.SessionMeta, []llm.Message, string, error) {
	if o.Resume != "" {
		return rt.loadSessionHeld(ctx, o.Resume, hold)
	}
	id := cmpOr(o.SessionID, rt.newSessionID())
	if err := hold(ctx, id); err != nil {
		return agent.SessionMeta{}, nil, "", err
	}
	return agent.SessionMeta{ID: id, Source: cmpOr(o.Source, rt.opts.Source), Cwd: workdir}, nil, "", nil
}

// conversationTools replaces, in the runtime's agent tools, those that
// keep a conversation's state (todo, clarify, delegate_task), and builds
// the conversation's system prompt: its workspace, platform and extra
// text. fresh re-reads memory for a new session: in a long-lived process
// the files change between sessions.
func (rt *Runtime) conversationTools(acfg *agent.Config, todos *todo.Store, o AgentOptions, workdir string, fresh bool, warn func(string)) {
	tools := make([]tool.Tool, 0, len(acfg.AgentTools))
	delegation := false
	for _, t := range acfg.AgentTools {
		switch t.Spec().Name {
		case "todo":
			t = todo.NewTool(todos, rt.store.SetTodo)
		case "clarify":
			t = clarify.New(o.Clarify)
		case delegate.Name:
			delegation = true
			continue // built below, over this agent's configuration
		}
		tools = append(tools, t)
	}
	acfg.AgentTools = tools
	if delegation {
		acfg.AgentTools = append(acfg.AgentTools, rt.delegateTool(*acfg))
	}
	platform := cmpOr(o.Platform, rt.opts.Platform)
	acfg.SystemPrompt = func(ctx context.Context, model, prov string) (string, error) {
		if mem := rt.memory; mem != nil && fresh {
			if err := mem.Load(); err != nil {
				warn(fmt.Sprintf("memory: %v", err))
			}
		}
		b := rt.promptBuilder(model, prov)
		b.Workdir, b.Platform = workdir, platform
		if o.SystemPrompt != "" {
			b.Extra = strings.TrimSpace(b.Extra + "\n\n" + o.SystemPrompt)
		}
		for _, t := range acfg.AgentTools {
			b.ToolNames = append(b.ToolNames, t.Spec().Name)
		}
		b.ToolNames = append(b.ToolNames, acfg.Tools.Names()...)
		p, notes := b.Build()
		for _, n := range notes {
			warn("system prompt: " + n)
		}
		return p, nil
	}
}

// onCompressed is what follows a compression of a conversation whose
// task list is todos: memory read again for the continuation's prompt,
// the task list carried into the child session.
func (rt *Runtime) onCompressed(todos *todo.Store) func(ctx context.Context, history []llm.Message, sessionID string) error {
	return func(ctx context.Context, history []llm.Message, sessionID string) error {
		var errs []error
		if mem := rt.memory; mem != nil {
			errs = append(errs, mem.Load())
		}
		if b, err := json.Marshal(todos); err == nil && sessionID != "" {
			errs = append(errs, rt.store.SetTodo(ctx, sessionID, b))
		}
		return errors.Join(errs...)
	}
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

	// base is the runtime's registry, which tools join and leave (MCP
	// servers that come late or are reloaded); bound are the workspace's
	// own terminal and file tools, used in place of the runtime's.
	base    *tool.Registry
	bound   map[string]tool.Tool
	syncMu  sync.Mutex
	syncGen uint64
	synced  bool

	mu   sync.Mutex
	warn func(string) // the agent working in it now
}

// NewWorkspace makes a workspace in workdir (default the runtime's) under
// sandbox mode mode (default sandbox.mode): the runtime's tools, with the
// terminal and the file tools bound to the workspace instead.
func (rt *Runtime) NewWorkspace(workdir, mode string) (*Workspace, error) {
	cfg := *rt.cfg
	if mode != "" {
		if _, err := sandbox.ParseMode(mode); err != nil {
			return nil, configErr(fmt.Errorf("sandbox: %w", err))
		}
		cfg.Sandbox.Mode = mode
	}
	ws := &Workspace{workdir: cmpOr(workdir, rt.workdir), base: rt.acfg.Tools}
	p, err := SandboxPolicy(&cfg, ws.workdir, rt.opts.Getenv)
	if err != nil {
		return nil, err
	}
	ws.policy = p
	term, files := rt.workspaceTools(ws.workdir, &ws.policy)
	ws.closers = append(ws.closers, term.Close)
	ws.bound = map[string]tool.Tool{}
	for _, t := range append(term.Tools(), files.All()...) {
		ws.bound[t.Spec().Name] = t
	}
	ws.reg = &tool.Registry{}
	if err := ws.sync(); err != nil {
		ws.Close()
		return nil, configErr(err)
	}
	shell, _, err := rt.hooks()
	if err != nil {
		ws.Close()
		return nil, err
	}
	ws.pre = shell
	if e := rt.cfg.Checkpoints.Enabled; e == nil || *e {
		st, err := OpenCheckpoints(rt.cfg, ws.policy.Workspace)
		if err != nil {
			rt.eventWarning("checkpoints off: " + err.Error())
		} else {
			ws.pre = append(ws.pre, st.PreHook(ws.warning))
		}
	}
	return ws, nil
}

// sync brings the workspace's registry up to the runtime's: tools that
// joined since are added, tools that left are removed. It is called when
// an agent starts working in the workspace, so a server that joins
// during a conversation serves it from the next prompt.
func (w *Workspace) sync() error {
	w.syncMu.Lock()
	defer w.syncMu.Unlock()
	gen := w.base.Generation()
	if w.synced && gen == w.syncGen {
		return nil
	}
	want := map[string]bool{}
	for _, n := range w.base.Names() {
		want[n] = true
		t, _ := w.base.Get(n)
		if b, ok := w.bound[n]; ok {
			if _, ok := w.reg.Get(n); ok {
				continue
			}
			t = b // left out when the toolsets setting leaves it out
		} else {
			w.reg.Unregister(n) // a reloaded server's tool replaces its old one
		}
		if err := w.reg.Register(t); err != nil {
			return err
		}
	}
	for _, n := range w.reg.Names() {
		if !want[n] {
			w.reg.Unregister(n)
		}
	}
	w.syncGen, w.synced = gen, true
	return nil
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

// rememberAlways keeps a key approved "always" for the runtime's later
// agents, which were built from the configuration read at start.
func (rt *Runtime) rememberAlways(key string) {
	rt.alwaysMu.Lock()
	rt.always = append(rt.always, key)
	rt.alwaysMu.Unlock()
}

func (rt *Runtime) allowlist() []string {
	rt.alwaysMu.Lock()
	defer rt.alwaysMu.Unlock()
	return append(slices.Clone(rt.cfg.CommandAllowlist), rt.always...)
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}
