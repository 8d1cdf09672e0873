package mcp

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/hermes-go/hermes/sandbox"
	"github.com/hermes-go/hermes/tool"
)

// Defaults of the restart backoff.
const (
	DefaultRestartBackoff    = time.Second
	DefaultMaxRestartBackoff = time.Minute
)

// Options configure a Manager.
type Options struct {
	// Registry receives the servers' tools. Required.
	Registry *tool.Registry
	// Sandbox is the policy stdio servers run under unless trusted; nil
	// runs them unsandboxed.
	Sandbox *sandbox.Policy
	// Runner starts the stdio servers that run under Sandbox: a Runner of
	// that policy (the terminal's, so that one helper forks the commands
	// and the servers alike), which the caller closes after the Manager.
	// Nil: the Manager starts a Runner of its own when a server first
	// needs one, and closes it with the Manager.
	Runner *sandbox.Runner
	// Environ is the environment of stdio servers before their own env
	// (default os.Environ(); the caller leaves secrets out).
	Environ []string
	// Dir is the working directory of stdio servers (default: the
	// process's).
	Dir string
	// CacheDir keeps each server's tools from its last connection, so
	// they are offered (answering that the server is down) when it cannot
	// start. Empty keeps nothing.
	CacheDir string
	// HTTPClient carries HTTP servers' requests (default: a new client).
	HTTPClient *http.Client
	// OnWarning is told when a server fails to start, dies, comes back,
	// or has a tool refused. Called from the servers' goroutines.
	OnWarning func(string)
	// Clock times restarts and the start-up wait (default: real time).
	Clock Clock
	// RestartBackoff is the first wait before a server that failed or
	// died is started again; it doubles up to MaxRestartBackoff.
	RestartBackoff    time.Duration
	MaxRestartBackoff time.Duration
	// Version is what hermes tells servers it is.
	Version string
}

// Manager runs the configured servers and keeps their tools in the
// registry. Create it with New, then Start.
type Manager struct {
	opts Options

	mu      sync.Mutex
	conns   map[string]*conn
	order   []string
	started bool
	closed  bool
	// ownRunner is the Runner the Manager started (Options.Runner nil).
	ownRunner *sandbox.Runner
}

// New returns a manager of servers; nothing starts before Start.
func New(opts Options, servers []Server) (*Manager, error) {
	if opts.Registry == nil {
		return nil, errors.New("mcp: no registry")
	}
	if opts.Clock == nil {
		opts.Clock = realClock{}
	}
	if opts.RestartBackoff <= 0 {
		opts.RestartBackoff = DefaultRestartBackoff
	}
	if opts.MaxRestartBackoff < opts.RestartBackoff {
		opts.MaxRestartBackoff = max(DefaultMaxRestartBackoff, opts.RestartBackoff)
	}
	m := &Manager{opts: opts, conns: map[string]*conn{}}
	for _, s := range servers {
		if _, dup := m.conns[s.Name]; dup {
			return nil, fmt.Errorf("mcp: server %q configured twice", s.Name)
		}
		m.conns[s.Name] = m.newConn(s)
		m.order = append(m.order, s.Name)
	}
	return m, nil
}

// Start starts every server at once and returns without waiting.
func (m *Manager) Start() {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.started || m.closed {
		return
	}
	m.started = true
	for _, name := range m.order {
		m.conns[name].start()
	}
}

// WaitStarted waits until every server has made its first attempt (it is
// ready or has failed), but not past bound after that server started,
// nor past ctx. Servers still starting then are reported once through
// OnWarning (they join when ready) and returned.
func (m *Manager) WaitStarted(ctx context.Context, bound time.Duration) []string {
	m.mu.Lock()
	conns := make([]*conn, 0, len(m.order))
	for _, name := range m.order {
		conns = append(conns, m.conns[name])
	}
	m.mu.Unlock()
	var late []string
	for _, c := range conns {
		if !c.waitSettled(ctx, bound) {
			late = append(late, c.cfg.Name)
		}
	}
	return late
}

// Status lists the servers in configuration order.
func (m *Manager) Status() []Status {
	m.mu.Lock()
	conns := make([]*conn, 0, len(m.order))
	for _, name := range m.order {
		conns = append(conns, m.conns[name])
	}
	m.mu.Unlock()
	out := make([]Status, len(conns))
	for i, c := range conns {
		out[i] = c.status()
	}
	return out
}

// Reload makes the running servers those of servers: a server no longer
// configured, or configured differently, is stopped and its tools
// removed; a new or changed one is started. Unchanged servers keep
// running. It returns at once; WaitStarted waits for the new ones.
func (m *Manager) Reload(servers []Server) error {
	want := map[string]Server{}
	var order []string
	for _, s := range servers {
		if _, dup := want[s.Name]; dup {
			return fmt.Errorf("mcp: server %q configured twice", s.Name)
		}
		want[s.Name] = s
		order = append(order, s.Name)
	}
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return errors.New("mcp: reload after close")
	}
	var stop []*conn
	for name, c := range m.conns {
		if s, ok := want[name]; !ok || !s.same(c.cfg) {
			stop = append(stop, c)
			delete(m.conns, name)
		}
	}
	m.mu.Unlock()
	stopAll(stop)

	m.mu.Lock()
	defer m.mu.Unlock()
	for _, name := range order {
		if _, ok := m.conns[name]; ok {
			continue
		}
		c := m.newConn(want[name])
		m.conns[name] = c
		if m.started {
			c.start()
		}
	}
	m.order = order
	return nil
}

// Close stops every server and removes their tools.
func (m *Manager) Close() error {
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return nil
	}
	m.closed = true
	var all []*conn
	for _, c := range m.conns {
		all = append(all, c)
	}
	m.mu.Unlock()
	stopAll(all)
	m.mu.Lock()
	r := m.ownRunner
	m.ownRunner = nil
	m.mu.Unlock()
	if r != nil {
		r.Close()
	}
	return nil
}

// runner is the Runner that starts sandboxed stdio servers.
func (m *Manager) runner() (*sandbox.Runner, error) {
	if m.opts.Runner != nil {
		return m.opts.Runner, nil
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.ownRunner == nil {
		if m.closed {
			return nil, errors.New("the MCP servers are being stopped")
		}
		m.ownRunner = m.opts.Sandbox.NewRunner()
	}
	return m.ownRunner, nil
}

// stopAll stops servers in parallel: each may take a moment to exit.
func stopAll(conns []*conn) {
	var wg sync.WaitGroup
	for _, c := range conns {
		wg.Go(c.stop)
	}
	wg.Wait()
}

func (m *Manager) warn(format string, args ...any) {
	if m.opts.OnWarning != nil {
		m.opts.OnWarning(fmt.Sprintf(format, args...))
	}
}
