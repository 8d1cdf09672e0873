package mcp

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hermes-go/hermes/tool"
)

// conn is one server's life: attempts to start it, the live session, the
// tools it has in the registry, and restarts after it fails or dies.
type conn struct {
	m   *Manager
	cfg Server

	ctx     context.Context
	cancel  context.CancelFunc
	settled chan struct{} // closed when the first attempt has ended
	settle  func()
	done    chan struct{} // closed when run returns
	broken  chan breakage // a call found the session unusable
	stderr  tail
	// installMu orders the registry changes of install and stop, so that
	// a late listing cannot bring back the tools of a stopped server.
	installMu sync.Mutex

	mu       sync.Mutex
	state    State
	sess     *sdk.ClientSession
	err      string
	since    time.Time
	started  time.Time
	restarts int
	nextTry  time.Time
	tools    map[string]tool.Tool // by registered name
	refused  []string
	warned   map[string]bool // refused tools already reported
	late     bool            // the start-up wait gave up on it
	quiet    bool            // its failure was reported; say nothing until it is back
	wasUp    bool
	running  bool
}

type breakage struct {
	sess *sdk.ClientSession
	err  error
}

func (m *Manager) newConn(s Server) *conn {
	ctx, cancel := context.WithCancel(context.Background())
	c := &conn{m: m, cfg: s, ctx: ctx, cancel: cancel, settled: make(chan struct{}),
		done: make(chan struct{}), broken: make(chan breakage, 1), state: Starting,
		tools: map[string]tool.Tool{}, warned: map[string]bool{}}
	c.settle = sync.OnceFunc(func() { close(c.settled) })
	return c
}

// start registers the tools remembered from last time and starts the
// first attempt.
func (c *conn) start() {
	c.mu.Lock()
	c.running = true
	c.started = c.m.opts.Clock.Now()
	c.since = c.started
	c.mu.Unlock()
	if cached, ok := c.m.loadCache(c.cfg); ok {
		c.install(nil, cached.tools(), cached.Resources, cached.Prompts)
	}
	go c.run()
}

// run is the server's loop: connect, watch, and after a failure or a
// death wait out the backoff and connect again, until stopped.
func (c *conn) run() {
	defer close(c.done)
	defer c.settle()
	clock := c.m.opts.Clock
	backoff := c.m.opts.RestartBackoff
	for {
		sess, cmd, err := c.connect()
		if err != nil {
			if c.ctx.Err() != nil {
				return
			}
			c.failed(err, backoff)
		} else {
			up := clock.Now()
			err := c.watch(sess)
			endGroup(cmd)
			if c.ctx.Err() != nil {
				return
			}
			if clock.Now().Sub(up) >= c.m.opts.MaxRestartBackoff {
				backoff = c.m.opts.RestartBackoff // it ran a good while: start over
			}
			c.lost(err, backoff)
		}
		select {
		case <-c.ctx.Done():
			return
		case <-clock.After(backoff):
		}
		backoff = min(2*backoff, c.m.opts.MaxRestartBackoff)
		c.mu.Lock()
		c.restarts++
		c.mu.Unlock()
	}
}

// connect makes one attempt: start or reach the server, initialize, list
// its tools and install them.
func (c *conn) connect() (*sdk.ClientSession, *exec.Cmd, error) {
	if c.cfg.Invalid != "" {
		return nil, nil, errors.New(c.cfg.Invalid)
	}
	ctx, cancel := context.WithTimeout(c.ctx, c.cfg.connectTimeout())
	defer cancel()
	c.stderr.reset()
	tr, cmd, err := c.m.transport(c.cfg, &c.stderr)
	if err != nil {
		return nil, nil, err
	}
	version := c.m.opts.Version
	if version == "" {
		version = "dev"
	}
	client := sdk.NewClient(&sdk.Implementation{Name: "hermes", Version: version}, &sdk.ClientOptions{
		ToolListChangedHandler: func(_ context.Context, r *sdk.ToolListChangedRequest) { go c.refresh(r.Session) },
	})
	sess, err := client.Connect(ctx, tr, nil)
	if err != nil {
		endGroup(cmd)
		return nil, nil, c.explain(ctx, err)
	}
	tools, err := listTools(ctx, sess)
	if err != nil {
		sess.Close()
		endGroup(cmd)
		return nil, nil, c.explain(ctx, fmt.Errorf("listing its tools: %w", err))
	}
	caps := sess.InitializeResult().Capabilities
	hasResources := caps != nil && caps.Resources != nil
	hasPrompts := caps != nil && caps.Prompts != nil
	c.mu.Lock()
	c.sess = sess
	c.mu.Unlock()
	n := c.install(sess, tools, hasResources, hasPrompts)
	c.m.saveCache(c.cfg, tools, hasResources, hasPrompts)
	c.ready(n)
	return sess, cmd, nil
}

// explain turns a failed attempt into what the user reads: a timeout
// says so, and a stdio server's last words on stderr are added.
func (c *conn) explain(ctx context.Context, err error) error {
	switch {
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		err = fmt.Errorf("no answer within %s (connect_timeout)", c.cfg.connectTimeout())
	case c.cfg.transport() == Stdio && errors.Is(err, sdk.ErrConnectionClosed):
		err = errors.New("the server exited before it answered")
	}
	if s := c.stderr.last(3); s != "" {
		err = fmt.Errorf("%w; stderr: %s", err, s)
	}
	return err
}

func listTools(ctx context.Context, sess *sdk.ClientSession) ([]*sdk.Tool, error) {
	var out []*sdk.Tool
	for t, err := range sess.Tools(ctx, nil) {
		if err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	return out, nil
}

// watch blocks until the session ends: the server closed it (a stdio
// server exited), a call found it broken, or the server is stopped.
func (c *conn) watch(sess *sdk.ClientSession) error {
	ended := make(chan error, 1)
	go func() { ended <- sess.Wait() }()
	for {
		select {
		case err := <-ended:
			sess.Close()
			return c.exitReason(err)
		case b := <-c.broken:
			if b.sess != sess {
				continue // about an earlier session
			}
			sess.Close()
			if c.cfg.transport() == Stdio {
				// A server that died says more about why than the call did.
				return c.exitReason(<-ended)
			}
			return b.err
		case <-c.ctx.Done():
			sess.Close()
			return c.ctx.Err()
		}
	}
}

func (c *conn) exitReason(err error) error {
	what := "the connection closed"
	if c.cfg.transport() == Stdio {
		what = "the server exited"
	}
	if err != nil {
		what += " (" + err.Error() + ")"
	}
	if s := c.stderr.last(3); s != "" {
		what += "; stderr: " + s
	}
	return errors.New(what)
}

// refresh lists the tools again after the server said they changed.
func (c *conn) refresh(sess *sdk.ClientSession) {
	ctx, cancel := context.WithTimeout(c.ctx, c.cfg.connectTimeout())
	defer cancel()
	c.mu.Lock()
	current := c.sess == sess && sess != nil
	c.mu.Unlock()
	if !current {
		return // the first listing, after connecting, sees the change
	}
	tools, err := listTools(ctx, sess)
	if err != nil {
		return // a broken session is found by the calls and by watch
	}
	caps := sess.InitializeResult().Capabilities
	res, prompts := caps != nil && caps.Resources != nil, caps != nil && caps.Prompts != nil
	c.install(sess, tools, res, prompts)
	c.m.saveCache(c.cfg, tools, res, prompts)
}

func (c *conn) ready(n int) {
	c.mu.Lock()
	say := c.late || c.quiet
	back := c.quiet && c.wasUp
	c.state, c.err, c.since, c.late, c.quiet, c.nextTry = Ready, "", c.m.opts.Clock.Now(), false, false, time.Time{}
	c.wasUp = true
	c.mu.Unlock()
	c.settle()
	switch {
	case back:
		c.m.warn("MCP server %s is back (%d tool%s)", c.cfg.Name, n, plural(n))
	case say:
		c.m.warn("MCP server %s is ready (%d tool%s)", c.cfg.Name, n, plural(n))
	}
}

// failed records an attempt that did not get the server going.
func (c *conn) failed(err error, retry time.Duration) {
	c.mu.Lock()
	say := !c.quiet
	c.state, c.err, c.sess, c.quiet = Down, err.Error(), nil, true
	c.since, c.nextTry = c.m.opts.Clock.Now(), c.m.opts.Clock.Now().Add(retry)
	n := len(c.tools)
	c.mu.Unlock()
	c.settle()
	if !say {
		return
	}
	if n > 0 {
		c.m.warn("MCP server %s failed to start: %v (its %d tool%s from last time answer with this error; retrying in %s)", c.cfg.Name, err, n, plural(n), retry)
		return
	}
	c.m.warn("MCP server %s failed to start: %v (retrying in %s)", c.cfg.Name, err, retry)
}

// lost records a server that was up and no longer is.
func (c *conn) lost(err error, retry time.Duration) {
	c.mu.Lock()
	c.state, c.err, c.sess, c.quiet = Down, err.Error(), nil, true
	c.since, c.nextTry = c.m.opts.Clock.Now(), c.m.opts.Clock.Now().Add(retry)
	c.mu.Unlock()
	c.m.warn("MCP server %s is down: %v (restarting it in %s)", c.cfg.Name, err, retry)
}

// session is the live session, or the error a call answers with.
func (c *conn) session() (*sdk.ClientSession, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	switch c.state {
	case Ready:
		return c.sess, nil
	case Starting:
		return nil, fmt.Errorf("MCP server %s is still starting; try again in a moment", c.cfg.Name)
	case Down:
		msg := fmt.Sprintf("MCP server %s is down: %s", c.cfg.Name, c.err)
		if wait := c.nextTry.Sub(c.m.opts.Clock.Now()); wait > 0 {
			msg += fmt.Sprintf(" (hermes starts it again in %s)", wait.Round(time.Second))
		} else {
			msg += " (hermes is starting it again)"
		}
		return nil, errors.New(msg)
	}
	return nil, fmt.Errorf("MCP server %s was stopped", c.cfg.Name)
}

// callFailed turns an error from a call into what the model reads. A
// protocol error from the server is the call's failure; anything else
// means the connection is gone: the server is marked down and restarted.
func (c *conn) callFailed(ctx context.Context, sess *sdk.ClientSession, what string, err error) (tool.Result, error) {
	if ctx.Err() != nil {
		return tool.Result{}, err // the executor reports the timeout or the interrupt
	}
	var rpc *jsonrpc.Error
	if errors.As(err, &rpc) {
		return tool.Error(fmt.Sprintf("MCP server %s: %s failed: %s", c.cfg.Name, what, rpc.Message)), nil
	}
	c.mu.Lock()
	if c.sess == sess && c.state == Ready {
		c.state, c.err, c.sess = Down, err.Error(), nil
		c.nextTry = time.Time{}
	}
	c.mu.Unlock()
	select {
	case c.broken <- breakage{sess, err}:
	default:
	}
	return tool.Error(fmt.Sprintf("MCP server %s is down: the connection broke during the call (%v); hermes is starting it again", c.cfg.Name, err)), nil
}

// waitSettled waits for the first attempt, up to bound after the start.
// A server it gives up on is reported and marked late.
func (c *conn) waitSettled(ctx context.Context, bound time.Duration) bool {
	select {
	case <-c.settled:
		return true
	default:
	}
	c.mu.Lock()
	started, running := c.started, c.running
	c.mu.Unlock()
	if !running {
		return true
	}
	remaining := started.Add(bound).Sub(c.m.opts.Clock.Now())
	if remaining > 0 {
		select {
		case <-c.settled:
			return true
		case <-ctx.Done():
			return false
		case <-c.m.opts.Clock.After(remaining):
		}
	}
	select {
	case <-c.settled:
		return true
	default:
	}
	c.mu.Lock()
	say := !c.late && c.state == Starting
	c.late = true
	c.mu.Unlock()
	if say {
		c.m.warn("MCP server %s is still starting after %s; its tools join when it is ready", c.cfg.Name, bound)
	}
	return false
}

// stop ends the server and removes its tools.
func (c *conn) stop() {
	c.cancel()
	c.mu.Lock()
	running := c.running
	c.mu.Unlock()
	if running {
		<-c.done
	}
	c.installMu.Lock()
	defer c.installMu.Unlock()
	c.mu.Lock()
	tools := c.tools
	c.tools = map[string]tool.Tool{}
	c.state, c.sess = Stopped, nil
	c.mu.Unlock()
	for name := range tools {
		c.m.opts.Registry.Unregister(name)
	}
}

func (c *conn) status() Status {
	c.mu.Lock()
	defer c.mu.Unlock()
	st := Status{Name: c.cfg.Name, Transport: c.cfg.transport(), State: c.state, Tools: len(c.tools),
		Refused: append([]string(nil), c.refused...), Err: c.err, Restarts: c.restarts, Since: c.since}
	if c.state == Down {
		st.NextTry = c.nextTry
	}
	return st
}
