package app

import (
	"context"
	"errors"
	"iter"
	"maps"
	"slices"
	"sync"

	"github.com/hermes-go/hermes/agent"
	"github.com/hermes-go/hermes/compress"
	"github.com/hermes-go/hermes/llm"
	"github.com/hermes-go/hermes/memory"
	"github.com/hermes-go/hermes/provider"
	"github.com/hermes-go/hermes/tool"
	"github.com/hermes-go/hermes/tool/approval"
	"github.com/hermes-go/hermes/tools/clarify"
	"github.com/hermes-go/hermes/tools/todo"
)

// ConversationOptions describe one conversation. The zero value is a new
// session in the runtime's workspace that nobody attends: dangerous
// commands are denied.
type ConversationOptions struct {
	// Resume continues a stored session: its id, its title, or "latest".
	Resume string
	// Fork continues a copy of a stored session (id, title or "latest"):
	// the copy is a new session, the original stays as it was.
	Fork string
	// SessionID is the id a new session gets (default a fresh one), for
	// a surface that names the session before its first turn.
	SessionID string
	// Source names the surface in a new session (default Options.Source).
	Source string
	// Platform is the platform hint of the system prompt (default
	// Options.Platform).
	Platform string
	// Origin is where the conversation's messages come from, as a
	// delivery target: a chat ("telegram:12345", "slack:C01:1712.5"), or
	// "local" for a person at the terminal. The cronjob tool is offered
	// where it is set, and delivers a job there unless told otherwise.
	Origin string

	// Workdir is the conversation's workspace (default the runtime's). A
	// directory or sandbox mode other than the runtime's gets a workspace
	// of its own (sandbox, terminal, file tools, checkpoints), which
	// Close ends.
	Workdir string
	// Sandbox overrides sandbox.mode (read-only, workspace-write,
	// full-access); empty keeps the configured mode.
	Sandbox string
	// Workspace, when set, is where the conversation works (Workdir and
	// Sandbox are then ignored): one its owner keeps across conversations.
	Workspace *Workspace
	// Toolsets narrows the runtime's toolsets for this conversation
	// (empty: all the runtime offers).
	Toolsets []string
	// MCP adds the tools of a conversation's own MCP servers to the
	// configured ones; Open first waits for those still starting, up to
	// mcp_startup_timeout after they started.
	MCP *SessionMCP

	// Model puts the conversation on another model than the runtime's
	// (Runtime.Models lists them; "name" or "provider:name"): a model of
	// the chain moves to its front, any other takes the primary's place;
	// the fallbacks stay behind it.
	Model string
	// MaxTurns is the iteration budget of each turn (default
	// agent.max_turns).
	MaxTurns int
	// ReasoningEffort overrides agent.reasoning_effort (none, low,
	// medium, high).
	ReasoningEffort string
	// SystemPrompt is added to the built system prompt of a new session
	// (a client's own system message); a resumed session keeps the prompt
	// it was built with.
	SystemPrompt string
	// Skills are preloaded into the session's system prompt (hermes -s
	// NAME); a name not installed is a *ConfigError.
	Skills []string
	// IgnoreRules leaves out context files (AGENTS.md, ...) and memory.
	IgnoreRules bool

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

	// Observer receives the conversation's events, subagents' included.
	Observer agent.Observer
}

// Conversation is one session over a runtime's shared parts, as sql.Conn
// is one connection of a sql.DB: its own agent and history, working
// directory and sandbox, toolsets, model, approvals, task list and
// callbacks. It holds its session (and any a compression continues in)
// until Close, so no other writer interleaves with it.
//
// A conversation runs one turn at a time (agent.ErrBusy otherwise).
// Interrupt, Steer, Wait, Busy and the read-only accessors may be called
// from any goroutine. The session operations (Undo, Compress, SetTitle, ...)
// may not run during a turn, except SwitchModel, which applies from the
// next one.
type Conversation struct {
	rt        *Runtime
	opts      ConversationOptions
	agent     *agent.Agent
	ws        *Workspace
	approver  *approval.Approver
	todos     *todo.Store
	memory    *memory.Store // nil without memory
	compress  *compress.Compressor
	preloaded string // the skills opts.Skills preloads, rendered
	fresh     bool   // a new session: memory is read again for its prompt
	obs       observers

	modelMu sync.Mutex
	entries []provider.Endpoint // this conversation's chain, the primary first
	chain   *provider.Chain     // the chain built over entries

	mu         sync.Mutex
	turn       chan struct{} // closed when the running turn ends; nil when idle
	closed     bool
	locks      map[string]func() error // the sessions it holds, by id
	closers    []func() error
	titleTried bool
	netTurn    chan struct{} // one network question at a time
}

// ErrConversationClosed is returned by a closed conversation's turns.
var ErrConversationClosed = errors.New("app: the conversation is closed")

// Open starts a conversation: a new session, or one resumed or forked
// from the store. Resuming a session another conversation (in this
// process or another) holds is a *ConfigError for session.ErrBusy naming
// the holder's pid; so is a session that does not exist. Open is safe for
// concurrent use; Close the conversation when done.
func (rt *Runtime) Open(ctx context.Context, o ConversationOptions) (*Conversation, error) {
	c := &Conversation{rt: rt, opts: o, locks: map[string]func() error{}, netTurn: make(chan struct{}, 1)}
	if err := rt.track(c); err != nil {
		return nil, err
	}
	ok := false
	defer func() {
		if !ok {
			c.Close()
		}
	}()
	if err := c.assemble(ctx); err != nil {
		return nil, err
	}
	c.logOpened()
	ok = true
	return c, nil
}

// Run runs one turn (agent.Agent.Run).
func (c *Conversation) Run(ctx context.Context, in agent.Input) (*agent.Result, error) {
	done, err := c.begin()
	if err != nil {
		return nil, err
	}
	defer done()
	return c.agent.Run(ctx, in)
}

// Chat runs one turn on the message and returns the final answer; a turn
// that did not complete returns its error.
func (c *Conversation) Chat(ctx context.Context, message string) (string, error) {
	done, err := c.begin()
	if err != nil {
		return "", err
	}
	defer done()
	return c.agent.Chat(ctx, message)
}

// Stream runs one turn and yields its events in order, the last one
// EventDone with the Result (agent.Agent.Stream).
func (c *Conversation) Stream(ctx context.Context, in agent.Input) iter.Seq2[agent.Event, error] {
	return func(yield func(agent.Event, error) bool) {
		done, err := c.begin()
		if err != nil {
			yield(agent.Event{}, err)
			return
		}
		defer done()
		for e, err := range c.agent.Stream(ctx, in) {
			if !yield(e, err) {
				return
			}
		}
	}
}

// begin marks a turn as running; done marks its end.
func (c *Conversation) begin() (done func(), err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return nil, ErrConversationClosed
	}
	if c.turn != nil {
		return nil, agent.ErrBusy
	}
	turn := make(chan struct{})
	c.turn = turn
	detach := c.ws.attach(c.warning)
	return func() {
		detach()
		c.mu.Lock()
		c.turn = nil
		c.mu.Unlock()
		close(turn)
	}, nil
}

// Interrupt stops the running turn; it returns at once.
func (c *Conversation) Interrupt() { c.agent.Interrupt() }

// Steer adds text to the running turn, read by the model at its next call
// (agent.Agent.Steer); false when no turn runs, and the caller sends the
// text as the next turn. A text the turn ends before delivering is in its
// Result's PendingSteer (Run, and Stream's EventDone).
func (c *Conversation) Steer(text string) bool { return c.agent.Steer(text) }

// Busy reports whether a turn (or a user's command, RunShell) is running.
func (c *Conversation) Busy() bool {
	c.mu.Lock()
	running := c.turn != nil
	c.mu.Unlock()
	return running || c.agent.Busy()
}

// Wait returns when no turn runs, or with ctx's error.
func (c *Conversation) Wait(ctx context.Context) error {
	c.mu.Lock()
	turn := c.turn
	c.mu.Unlock()
	if turn == nil {
		return nil
	}
	select {
	case <-turn:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Observe adds an observer of the conversation's events. Events reach
// every observer in order, from the agent's delivery goroutine.
func (c *Conversation) Observe(o agent.Observer) { c.obs.add(o) }

// Close interrupts a turn still running and waits for it, then releases
// the sessions the conversation holds and ends the processes of a
// workspace of its own. It does not end the session (End does): a later
// conversation may resume it. Close is safe to call more than once.
func (c *Conversation) Close() error {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return nil
	}
	c.closed = true
	turn := c.turn
	c.mu.Unlock()
	if turn != nil {
		c.agent.Interrupt()
		<-turn
	}
	c.mu.Lock()
	closers, locks := c.closers, c.locks
	c.closers, c.locks = nil, nil
	c.mu.Unlock()
	var errs []error
	for i := len(closers) - 1; i >= 0; i-- {
		errs = append(errs, closers[i]())
	}
	// A backend with a container per conversation removes this one's
	// now, not when the shared workspace ends.
	if c.ws != nil && c.agent != nil {
		if e, ok := c.ws.be.(interface{ EndSession(string) error }); ok {
			errs = append(errs, e.EndSession(c.SessionID()))
		}
	}
	for _, id := range slices.Sorted(maps.Keys(locks)) {
		if c.ws != nil {
			c.ws.convs.CompareAndDelete(id, c)
		}
		errs = append(errs, locks[id]())
	}
	c.rt.untrack(c)
	return errors.Join(errs...)
}

// warning reports a problem to the conversation's observers as a warning
// event, in order with the turn's own events.
func (c *Conversation) warning(s string) {
	if c.agent == nil {
		c.rt.warn(s)
		return
	}
	c.agent.Notify(agent.Event{Kind: agent.EventWarning, Time: c.rt.opts.Now(), Text: s})
}

// SessionID is the current session: the one opened, or the child
// session a compression continued in.
func (c *Conversation) SessionID() string { return c.agent.SessionID() }

// Session describes the current session as the conversation knows it.
func (c *Conversation) Session() agent.SessionMeta { return c.agent.Session() }

// History is a copy of the conversation so far (no system message).
func (c *Conversation) History() []llm.Message { return c.agent.History() }

// Todos is the conversation's task list as the todo tool left it.
func (c *Conversation) Todos() todo.State { return c.todos.Get() }

// Workspace is where the conversation works.
func (c *Conversation) Workspace() *Workspace { return c.ws }

// Workdir is the conversation's working directory.
func (c *Conversation) Workdir() string { return c.ws.workdir }

// Runtime is the runtime the conversation belongs to.
func (c *Conversation) Runtime() *Runtime { return c.rt }

// ToolDefs are the tool definitions the model is offered now.
func (c *Conversation) ToolDefs() []llm.ToolDef { return c.agent.ToolDefs() }

// ContextLength is the context window the conversation works with.
func (c *Conversation) ContextLength() int { return c.agent.ContextLength() }

// SystemPromptText is the session's system prompt ("" before its first
// turn).
func (c *Conversation) SystemPromptText() string { return c.agent.SystemPromptText() }

// observers fans a conversation's event stream out to the surfaces
// listening. The agent calls emit from one goroutine at a time, in order.
type observers struct {
	mu   sync.Mutex
	list []agent.Observer
}

func (o *observers) add(f agent.Observer) {
	if f == nil {
		return
	}
	o.mu.Lock()
	o.list = append(o.list, f)
	o.mu.Unlock()
}

func (o *observers) emit(e agent.Event) {
	o.mu.Lock()
	list := o.list
	o.mu.Unlock()
	for _, f := range list {
		f(e)
	}
}

// toolsetOn reports whether the conversation offers a toolset: the
// runtime's toolsets setting and the conversation's own both allow it.
func (c *Conversation) toolsetOn(name string) bool {
	if !toolsetEnabled(c.rt.cfg, name) {
		return false
	}
	ts := c.opts.Toolsets
	return len(ts) == 0 || slices.Contains(ts, name) || slices.Contains(ts, "all")
}

// registry is the tools the conversation offers from its workspace (and
// its own MCP servers), narrowed to its toolsets.
func (c *Conversation) registry() (*tool.Registry, error) {
	reg := c.ws.reg
	if c.opts.MCP != nil {
		var err error
		if reg, err = c.opts.MCP.over(reg); err != nil {
			return nil, err
		}
	}
	return tool.Narrow(reg, c.opts.Toolsets), nil
}
