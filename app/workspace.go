package app

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/hermes-go/hermes/backend"
	"github.com/hermes-go/hermes/checkpoint"
	"github.com/hermes-go/hermes/config"
	"github.com/hermes-go/hermes/sandbox"
	"github.com/hermes-go/hermes/tool"
	"github.com/hermes-go/hermes/tool/approval"
	"github.com/hermes-go/hermes/tools/file"
	"github.com/hermes-go/hermes/tools/terminal"
)

// Workspace is a directory with its sandbox and what is bound to it: the
// sandbox helper that starts its commands (in the default workspace, the
// sandboxed MCP servers' too), the terminal (and the background
// processes it started), the file tools, the shell hooks and the
// checkpoint store. Its registry shows the
// runtime's shared tools with its own on top, following the runtime's as
// MCP servers join or leave. Conversations in the runtime's default
// workspace share it; one in another directory or sandbox mode gets its
// own, which its Close ends. A surface that keeps a directory across
// conversations (ACP keeps one per editor session) makes one with
// NewWorkspace and passes it in ConversationOptions.Workspace.
type Workspace struct {
	workdir     string
	policy      sandbox.Policy
	reg         *tool.Registry
	pre         []tool.PreHook
	post        []tool.PostHook
	checkpoints *checkpoint.Store // nil when checkpoints are off
	// be is where its commands run and its files live (terminal.backend).
	be backend.Backend
	// term runs its commands, and execute_code's scripts.
	term *terminal.Terminal
	// runner starts its sandboxed commands, and the runtime's MCP
	// servers in the default workspace; nil in full access.
	runner  *sandbox.Runner
	closers []func() error

	// convs are the conversations working here, by the sessions they
	// hold: a command's network question goes to the person of the
	// conversation whose session ran it.
	convs sync.Map // session id -> *Conversation

	mu     sync.Mutex
	warn   func(string) // the conversation running a turn in it now
	warnID *int         // which attach set warn
	owner  func(string) // the runtime's warnings, when no turn runs
}

// workspaceToolsets are the toolsets of the tools a workspace binds.
func workspaceToolsets() []string { return []string{"terminal", "file"} }

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
	workdir = cmp.Or(workdir, rt.workdir)
	p, err := SandboxPolicy(&cfg, workdir, rt.opts.Getenv)
	if err != nil {
		return nil, err
	}
	return rt.workspaceWith(workdir, p, nil)
}

// newRunner is the Runner of p, its helper starting now in the
// background; nil for full access, which has nothing to enforce.
func newRunner(p sandbox.Policy) *sandbox.Runner {
	if p.Mode == sandbox.FullAccess {
		return nil
	}
	return p.NewRunner()
}

// workspaceWith makes the workspace of workdir under policy p, its
// commands started by runner (a Runner of p its caller closes), or by
// one of its own when runner is nil.
func (rt *Runtime) workspaceWith(workdir string, p sandbox.Policy, runner *sandbox.Runner) (*Workspace, error) {
	cfg := rt.cfg
	ws := &Workspace{workdir: workdir, owner: rt.warn, policy: p, runner: runner}
	if ws.runner == nil {
		if ws.runner = newRunner(p); ws.runner != nil {
			ws.closers = append(ws.closers, ws.runner.Close)
		}
	}
	rt.learnWorkspace(cmp.Or(p.Workspace, ws.workdir))
	be, err := rt.newBackend(ws)
	if err != nil {
		ws.Close()
		return nil, err
	}
	ws.be = be
	ws.closers = append(ws.closers, be.Close)
	term := terminal.New(terminal.Options{
		Backend:   be,
		Timeout:   config.Seconds(cfg.Terminal.Timeout),
		MaxOutput: cfg.Terminal.MaxOutput,
		Redact:    rt.redact,
		Now:       rt.opts.Now,
	})
	ws.closers = append(ws.closers, term.Close)
	ws.term = term
	files := file.New(file.Options{FS: be.FS(), Workdir: term.Workdir, Redact: rt.redact,
		WriteGuard: be.CheckWrite, ReadGuard: be.CheckRead})
	bound := tool.NewRegistry(append(term.Tools(), files.All()...)...).Filter(cfg.Toolsets)
	ws.reg = tool.Stack(bound, rt.tools)
	if ws.pre, ws.post, err = rt.hooks(ws.workdir, ws.warning); err != nil {
		ws.Close()
		return nil, err
	}
	// Checkpoints snapshot this machine's workspace: they apply where the
	// file tools write this machine's files (docker's workspace is
	// bind-mounted from here).
	_, local := be.FS().(backend.OSFS)
	local = local || be.Name() == "docker"
	if local && (cfg.Checkpoints.Enabled == nil || *cfg.Checkpoints.Enabled) {
		st, err := OpenCheckpoints(rt.cfg, ws.policy.Workspace)
		if err != nil {
			rt.warn("checkpoints off: " + err.Error())
		} else {
			ws.checkpoints = st
			ws.pre = append(ws.pre, st.PreHook(ws.warning))
		}
	}
	return ws, nil
}

// networkAsk is who is asked about a domain for a command of session:
// the conversation holding it, or nobody (a subagent's session, a
// session no conversation here holds), which refuses.
func (w *Workspace) networkAsk(session string) func(ctx context.Context, host string) (approval.Choice, error) {
	v, ok := w.convs.Load(session)
	if !ok {
		return nil
	}
	return v.(*Conversation).askNetwork
}

// Workdir is the workspace's directory.
func (w *Workspace) Workdir() string { return w.workdir }

// Sandbox is the policy its commands and file tools run under.
func (w *Workspace) Sandbox() sandbox.Policy { return w.policy }

// Backend is where its commands run and its files live.
func (w *Workspace) Backend() backend.Backend { return w.be }

// Checkpoints is its checkpoint store, nil when checkpoints.enabled is
// false or the store could not be opened.
func (w *Workspace) Checkpoints() *checkpoint.Store { return w.checkpoints }

// Close ends the background processes its terminal started.
func (w *Workspace) Close() error {
	var errs []error
	for i := len(w.closers) - 1; i >= 0; i-- {
		errs = append(errs, w.closers[i]())
	}
	w.closers = nil
	return errors.Join(errs...)
}

// attach makes warnings of the workspace's hooks and checkpoints reach
// f (the conversation starting a turn in it: of several at once, the
// latest) and returns the function that detaches it.
func (w *Workspace) attach(f func(string)) (detach func()) {
	id := new(int)
	w.mu.Lock()
	w.warn, w.warnID = f, id
	w.mu.Unlock()
	return func() {
		w.mu.Lock()
		if w.warnID == id {
			w.warn, w.warnID = nil, nil
		}
		w.mu.Unlock()
	}
}

// warning reaches the conversation running a turn in the workspace, else
// the runtime's warnings.
func (w *Workspace) warning(s string) {
	w.mu.Lock()
	f := w.warn
	w.mu.Unlock()
	if f == nil {
		f = w.owner
	}
	if f != nil {
		f(s)
	}
}
