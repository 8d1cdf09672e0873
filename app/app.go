package app

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/hermes-go/hermes/agent"
	"github.com/hermes-go/hermes/checkpoint"
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
	"github.com/hermes-go/hermes/tools/clarify"
	"github.com/hermes-go/hermes/tools/todo"
)

// Options is what differs between the surfaces that run an agent. The
// zero value is an unattended library agent: no one answers questions,
// so dangerous commands are denied.
type Options struct {
	// Source names the surface in stored sessions: cli, api_server, acp,
	// batch, ... (default "library").
	Source string
	// Platform is the platform hint of the system prompt (default "cli").
	Platform string
	// Workdir is the workspace: the terminal's starting directory, the
	// directory context files are read from, the session's cwd (default:
	// the process's working directory).
	Workdir string

	// Approve asks a person about a dangerous command. Nil means nobody
	// is there: such commands are denied unless Yolo. Hardline commands
	// are refused either way.
	Approve func(ctx context.Context, p approval.Prompt) (approval.Choice, error)
	// Clarify asks a person a question for the clarify tool. Nil tells
	// the model that no one can answer.
	Clarify clarify.Ask
	// Yolo runs dangerous commands without asking.
	Yolo bool

	// Resume continues a stored session: its id, its title, or "latest".
	Resume string
	// IgnoreRules leaves out context files (AGENTS.md, ...) and memory.
	IgnoreRules bool
	// NoStream makes model calls without streaming.
	NoStream bool

	// Tools are added to the built-in tools, whatever the toolsets
	// setting says: an embedder's own tools.
	Tools []tool.Tool
	// Observer receives the agent's events; Runtime.Observe adds more.
	Observer agent.Observer
	// OnWarning receives problems found while assembling the runtime that
	// do not stop it (a skipped fallback provider, unreadable memory), and
	// later, from other goroutines, MCP servers that fail to start, die
	// or come back. They are also kept in Runtime.Warnings.
	OnWarning func(string)

	// Skills are preloaded into the session's system prompt (hermes -s
	// NAME); a name not installed is a *ConfigError.
	Skills []string

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
	// Now is the clock of the agent and its stores (default time.Now).
	Now func() time.Time
}

// Runtime is an assembled agent and what it runs on. Create it with New;
// Close it when done.
type Runtime struct {
	cfg     *config.Config
	opts    Options
	getenv  func(string) string
	workdir string
	modelMu sync.Mutex // guards endpoint and entries after New (SwitchModel)
	// endpoint is the primary; entries the chain, the primary first.
	endpoint provider.Endpoint
	entries  []provider.Endpoint
	resolver provider.Resolver
	pcfg     provider.Config
	found    *provider.Found
	policy   sandbox.Policy

	checkpoints *checkpoint.Store // nil when checkpoints are off

	agent    *agent.Agent
	store    *session.Store
	memory   *memory.Store // nil when memory is off
	todos    *todo.Store
	approver *approval.Approver
	redactor *redact.Redactor // nil when redaction is off
	redact   func(string) string
	obs      observers
	warnMu   sync.Mutex
	warnings []string
	closers  []func() error

	titleMu    sync.Mutex
	titleTried bool // a title was asked for in the current session
	titles     sync.WaitGroup

	meter   usageMeter // tokens by main model and auxiliary task
	webOnce sync.Once
	web     *http.Client // the guarded client of the web tools

	mcp       *mcp.Manager    // the MCP servers
	tools     *tool.Registry  // the agent's registry, which MCP tools join
	skills    *skills.Library // the skills found for this workdir
	preloaded string          // the skills Options.Skills preloads, rendered

	locksMu sync.Mutex
	locks   map[string]func() error // releases the sessions this runtime writes, by id

	// acfg is what agent was built from; batchExec runs its tools one
	// call at a time (batch.go).
	acfg agent.Config
	batchExec

	// always are the keys approved "always" since the runtime started,
	// for the agents NewAgent makes later (agents.go).
	alwaysMu sync.Mutex
	always   []string
}

// New assembles the runtime cfg describes. Configuration problems are
// *ConfigError, a HERMES_HOME where the session database cannot be
// written among them; a session database that cannot be opened is an
// error naming the file.
func New(ctx context.Context, cfg *config.Config, opts Options) (*Runtime, error) {
	if cfg == nil {
		return nil, configErr(errors.New("no configuration (use app.LoadConfig or config.Default)"))
	}
	if opts.Source == "" {
		opts.Source = "library"
	}
	if opts.Platform == "" {
		opts.Platform = "cli"
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Getenv == nil {
		opts.Getenv = os.Getenv
	}
	if cfg.Home == "" {
		cfg.Home = config.Home(opts.Getenv)
	}
	rt := &Runtime{cfg: cfg, opts: opts, workdir: opts.Workdir}
	rt.obs.add(rt.meter.observe)
	if opts.Observer != nil {
		rt.obs.add(opts.Observer)
	}
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
	ok := false
	defer func() {
		if !ok {
			rt.Close()
		}
	}()
	if err := rt.buildPolicy(); err != nil {
		return nil, err
	}
	// MCP servers start first, so that their start-up overlaps the rest.
	if err := rt.startMCP(); err != nil {
		return nil, err
	}
	if err := rt.resolveProviders(ctx); err != nil {
		return nil, err
	}
	if err := rt.openStore(); err != nil {
		return nil, err
	}
	if err := rt.buildAgent(ctx); err != nil {
		return nil, err
	}
	ok = true
	return rt, nil
}

// resolveProviders turns the configuration into the primary endpoint and
// its fallbacks. With provider auto and no key, a local OpenAI-compatible
// server on its usual port is looked for (provider.Resolver.Discover).
func (rt *Runtime) resolveProviders(ctx context.Context) error {
	rt.resolver = provider.Resolver{Getenv: rt.getenv, RunKeyCmd: rt.runKeyCmd}
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
	rt.entries, rt.endpoint = entries, entries[0]
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

// Agent is the assembled agent.
func (rt *Runtime) Agent() *agent.Agent { return rt.agent }

// Store is the session database.
func (rt *Runtime) Store() *session.Store { return rt.store }

// Config is the configuration the runtime was built from.
func (rt *Runtime) Config() *config.Config { return rt.cfg }

// Endpoint is the primary model endpoint (without its key).
func (rt *Runtime) Endpoint() provider.Endpoint {
	rt.modelMu.Lock()
	defer rt.modelMu.Unlock()
	return rt.endpoint.Redacted()
}

// LocalServer is the local model server found on its usual port when no
// provider was configured (nil otherwise); its String says which server
// and which model, for the user.
func (rt *Runtime) LocalServer() *provider.Found { return rt.found }

// Workdir is the workspace the runtime works in.
func (rt *Runtime) Workdir() string { return rt.workdir }

// Warnings lists the problems New found and went past, and those found
// since (MCP servers failing or coming back).
func (rt *Runtime) Warnings() []string {
	rt.warnMu.Lock()
	defer rt.warnMu.Unlock()
	return append([]string(nil), rt.warnings...)
}

// Observe adds an observer of the agent's events. Events reach every
// observer in order, from the agent's delivery goroutine.
func (rt *Runtime) Observe(o agent.Observer) { rt.obs.add(o) }

// EndSession records that this process is done with the current session
// (a resume reopens it). A session never stored, because no message was
// sent, has nothing to end.
func (rt *Runtime) EndSession(reason string) error {
	if reason == "" {
		reason = "ended"
	}
	err := rt.store.EndSession(context.Background(), rt.agent.SessionID(), reason)
	if err != nil && !errors.Is(err, session.ErrNotFound) {
		return fmt.Errorf("session store: %w", err)
	}
	return nil
}

// Close waits for background work (a session title being written), then
// releases the terminal's processes, the session database and the
// sessions this runtime held.
func (rt *Runtime) Close() error {
	rt.titles.Wait()
	var errs []error
	for i := len(rt.closers) - 1; i >= 0; i-- {
		errs = append(errs, rt.closers[i]())
	}
	rt.closers = nil
	rt.locksMu.Lock()
	for _, release := range rt.locks {
		errs = append(errs, release())
	}
	rt.locks = nil
	rt.locksMu.Unlock()
	return errors.Join(errs...)
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

// event sends a warning to the observers while the runtime runs.
func (rt *Runtime) eventWarning(s string) {
	if rt.agent != nil {
		rt.agent.Notify(agent.Event{Kind: agent.EventWarning, Time: rt.opts.Now(), Text: s})
		return
	}
	rt.obs.emit(agent.Event{Kind: agent.EventWarning, Time: rt.opts.Now(), Text: s})
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

// observers fans the agent's event stream out to the surfaces listening.
// The agent calls emit from one goroutine at a time, in order.
type observers struct {
	mu   sync.Mutex
	list []agent.Observer
}

func (o *observers) add(f agent.Observer) {
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
