package app

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/hermes-go/hermes/config"
	"github.com/hermes-go/hermes/llm"
	"github.com/hermes-go/hermes/mcp"
	"github.com/hermes-go/hermes/memory"
	"github.com/hermes-go/hermes/provider"
	"github.com/hermes-go/hermes/provider/transport"
	"github.com/hermes-go/hermes/redact"
	"github.com/hermes-go/hermes/sandbox"
	"github.com/hermes-go/hermes/session"
	"github.com/hermes-go/hermes/skills"
	"github.com/hermes-go/hermes/tool"
	"github.com/hermes-go/hermes/tool/approval"
)

// Options is what a surface sets for the whole runtime: the defaults of
// its conversations and the seams of its infrastructure. What differs
// between conversations is in ConversationOptions.
type Options struct {
	// Source names the surface in stored sessions: cli, api_server, acp,
	// batch, ... (default "library"); a conversation may name its own.
	Source string
	// Platform is the platform hint of the system prompt (default "cli").
	Platform string
	// Workdir is the default workspace of conversations: the terminal's
	// starting directory, the directory context files and project skills
	// are read from (default: the process's working directory).
	Workdir string
	// NoStream makes model calls without streaming.
	NoStream bool

	// Tools are added to the built-in tools, whatever the toolsets
	// setting says: an embedder's own tools.
	Tools []tool.Tool
	// OnWarning receives problems found while assembling the runtime that
	// do not stop it (a skipped fallback provider, unreadable memory), and
	// later, from other goroutines, MCP servers that fail to start, die
	// or come back. They are also kept in Runtime.Warnings.
	OnWarning func(string)

	// Getenv reads the environment for provider keys (default os.Getenv;
	// HERMES_HOME/.env fills what it leaves unset). Secrets to mask are
	// gathered from the process environment whatever it is, as commands
	// inherit that (harvest.Environ).
	Getenv func(string) string
	// HTTPClient carries every model call (default http.DefaultClient).
	HTTPClient *http.Client
	// Factory builds the transport of each endpoint (default
	// transport.New, the real wire formats). Tests may hand out
	// in-process clients instead.
	Factory provider.Factory
	// Now is the clock of the agents and the stores (default time.Now).
	Now func() time.Time
	// Logger receives what conversations do (tool calls, turns,
	// warnings), each record with its session id, masked with the
	// runtime's redactor; nil logs nothing.
	Logger *slog.Logger
}

// Runtime is what every conversation shares, built once from config:
// the configuration, the session store, the providers, the MCP servers,
// the skills library, memory, the redactor, the guarded web client, the
// usage meter, the approvals given for good, the learned context limits
// and the default workspace. It has no conversation of its own: Open
// makes one. It is safe for concurrent use.
type Runtime struct {
	cfg     *config.Config
	opts    Options
	getenv  func(string) string
	workdir string

	// The configured chain, the primary first. Conversations copy it and
	// own what they change (SwitchModel); it never changes after New.
	entries  []provider.Endpoint
	resolver provider.Resolver
	pcfg     provider.Config
	found    *provider.Found
	contexts *provider.ContextCache // learned context limits; nil when unreadable

	store    *session.Store
	memory   *memory.Store // nil when memory is off
	redactor *redact.Redactor
	redact   func(string) string
	log      *slog.Logger
	always   *approval.Allowlist
	meter    usageMeter
	webOnce  sync.Once
	web      *http.Client
	effort   string
	// summarizer writes compression summaries (auxiliary.compression);
	// nil when compression is off.
	summarizer      llm.Client
	summarizerModel string

	mcp       *mcp.Manager   // the configured MCP servers
	tools     *tool.Registry // built-in (but workspace-bound), web, skill, MCP and embedder tools
	skills    *skills.Library
	workspace *Workspace // the default workspace, shared by conversations in it

	warnMu   sync.Mutex
	warnings []string
	closers  []func() error
	titles   sync.WaitGroup

	mu     sync.Mutex
	open   map[*Conversation]struct{}
	closed bool
}

// New assembles the runtime cfg describes. Configuration problems are
// *ConfigError, a HERMES_HOME where the session database cannot be
// written among them; a session database that cannot be opened is an
// error naming the file.
func New(ctx context.Context, cfg *config.Config, opts Options) (*Runtime, error) {
	if cfg == nil {
		return nil, configErr(errors.New("no configuration (use app.LoadConfig or config.Default)"))
	}
	if cfg.Sandbox.Mode != string(sandbox.FullAccess) {
		// The sandbox helper (which proves what the kernel enforces)
		// starts while the rest is built: the terminal's description, in
		// the first request, says what it found.
		go sandbox.Probe()
	}
	opts.Source = cmp.Or(opts.Source, "library")
	opts.Platform = cmp.Or(opts.Platform, "cli")
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Getenv == nil {
		opts.Getenv = os.Getenv
	}
	if cfg.Home == "" {
		cfg.Home = config.Home(opts.Getenv)
	}
	rt := &Runtime{cfg: cfg, opts: opts, workdir: opts.Workdir, open: map[*Conversation]struct{}{}}
	if rt.workdir == "" {
		wd, err := os.Getwd()
		if err != nil {
			return nil, fmt.Errorf("working directory: %w", err)
		}
		rt.workdir = wd
	}
	getenv, dot, err := withDotEnv(cfg.Home, opts.Getenv)
	if err != nil {
		return nil, err
	}
	rt.getenv = getenv
	if cfg.Security.RedactSecrets == nil || *cfg.Security.RedactSecrets {
		rt.redactor = rt.newRedactor(dot)
		rt.redact = rt.redactor.String
	}
	rt.log = rt.newLog()
	rt.always = approval.NewAllowlist(cfg.CommandAllowlist, func(key string) error {
		return config.AddToAllowlist(filepath.Join(cfg.Home, "config.yaml"), key)
	})
	ok := false
	defer func() {
		if !ok {
			rt.Close()
		}
	}()
	if err := rt.assemble(ctx); err != nil {
		return nil, err
	}
	ok = true
	return rt, nil
}

// Store is the session database.
func (rt *Runtime) Store() *session.Store { return rt.store }

// Config is the configuration the runtime was built from.
func (rt *Runtime) Config() *config.Config { return rt.cfg }

// Endpoint is the configured primary model endpoint (without its key): a
// new conversation's model unless it names another.
func (rt *Runtime) Endpoint() provider.Endpoint { return rt.entries[0].Redacted() }

// LocalServer is the local model server found on its usual port when no
// provider was configured (nil otherwise); its String says which server
// and which model, for the user.
func (rt *Runtime) LocalServer() *provider.Found { return rt.found }

// Workdir is the default workspace of conversations.
func (rt *Runtime) Workdir() string { return rt.workdir }

// Allowlist is the runtime's command_allowlist: the keys approved for
// good, shared by every conversation and subagent.
func (rt *Runtime) Allowlist() *approval.Allowlist { return rt.always }

// Warnings lists the problems New found and went past, and those found
// since (MCP servers failing or coming back).
func (rt *Runtime) Warnings() []string {
	rt.warnMu.Lock()
	defer rt.warnMu.Unlock()
	return append([]string(nil), rt.warnings...)
}

// Close closes the conversations still open, waits for background work
// (session titles being written), then stops the MCP servers and the
// default workspace's processes and closes the session database. A
// conversation cannot outlive its runtime.
func (rt *Runtime) Close() error {
	rt.mu.Lock()
	if rt.closed {
		rt.mu.Unlock()
		return nil
	}
	rt.closed = true
	open := make([]*Conversation, 0, len(rt.open))
	for c := range rt.open {
		open = append(open, c)
	}
	rt.mu.Unlock()
	var errs []error
	for _, c := range open {
		errs = append(errs, c.Close())
	}
	rt.titles.Wait()
	for i := len(rt.closers) - 1; i >= 0; i-- {
		errs = append(errs, rt.closers[i]())
	}
	rt.closers = nil
	return errors.Join(errs...)
}

// errClosed is Open's answer after Close.
var errClosed = errors.New("app: the runtime is closed")

// track records an open conversation, so Close can close it.
func (rt *Runtime) track(c *Conversation) error {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	if rt.closed {
		return errClosed
	}
	rt.open[c] = struct{}{}
	return nil
}

func (rt *Runtime) untrack(c *Conversation) {
	rt.mu.Lock()
	delete(rt.open, c)
	rt.mu.Unlock()
}

// warn may be called from any goroutine.
func (rt *Runtime) warn(s string) {
	rt.warnMu.Lock()
	rt.warnings = append(rt.warnings, s)
	rt.warnMu.Unlock()
	if rt.opts.OnWarning != nil {
		rt.opts.OnWarning(s)
	}
}

func (rt *Runtime) factory() provider.Factory {
	if rt.opts.Factory != nil {
		return rt.opts.Factory
	}
	return transport.New
}

// transportOptions are what every transport of this runtime shares.
func (rt *Runtime) transportOptions() llm.Options {
	return llm.Options{NoStream: rt.opts.NoStream, HTTPClient: rt.opts.HTTPClient}
}

func (rt *Runtime) newSessionID() string { return session.NewID(rt.opts.Now) }

// Stats describes the runtime's use now.
type Stats struct {
	// OpenConversations counts the conversations opened and not closed.
	OpenConversations int
	// Running counts those running a turn.
	Running int
}

// Stats reports the runtime's open conversations, as sql.DB.Stats
// reports its connections.
func (rt *Runtime) Stats() Stats {
	rt.mu.Lock()
	open := make([]*Conversation, 0, len(rt.open))
	for c := range rt.open {
		open = append(open, c)
	}
	rt.mu.Unlock()
	s := Stats{OpenConversations: len(open)}
	for _, c := range open {
		if c.Busy() {
			s.Running++
		}
	}
	return s
}
