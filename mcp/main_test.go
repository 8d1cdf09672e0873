package mcp

import (
	"context"
	"encoding/json"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hermes-go/hermes/internal/mcptest"
	"github.com/hermes-go/hermes/sandbox"
	"github.com/hermes-go/hermes/tool"
)

// The test binary is its own sandbox helper and its own MCP server (see
// internal/mcptest): a stdio server here is this binary re-executed.
func TestMain(m *testing.M) {
	sandbox.MaybeRunHelper()
	mcptest.MaybeServe()
	os.Exit(m.Run())
}

// testServer is the test binary as a stdio server, with more environment.
func testServer(name string, env ...string) Server {
	exe, err := os.Executable()
	if err != nil {
		panic(err)
	}
	// A race-enabled binary sleeps a second at exit unless told not to.
	return Server{Name: name, Command: exe, Env: append([]string{mcptest.ServeEnv + "=1", "GORACE=atexit_sleep_ms=0"}, env...)}
}

// fakeClock is a Clock the test moves by hand.
type fakeClock struct {
	mu      sync.Mutex
	now     time.Time
	waiters []waiter
	added   chan struct{}
}

type waiter struct {
	d  time.Duration
	at time.Time
	ch chan time.Time
}

func newFakeClock() *fakeClock {
	return &fakeClock{now: time.Date(2026, 9, 1, 12, 0, 0, 0, time.UTC), added: make(chan struct{}, 1)}
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) After(d time.Duration) <-chan time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	ch := make(chan time.Time, 1)
	if d <= 0 {
		ch <- c.now
		return ch
	}
	c.waiters = append(c.waiters, waiter{d, c.now.Add(d), ch})
	select {
	case c.added <- struct{}{}:
	default:
	}
	return ch
}

// Advance moves the clock and fires the timers due.
func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
	keep := c.waiters[:0]
	for _, w := range c.waiters {
		if !w.at.After(c.now) {
			w.ch <- c.now
			continue
		}
		keep = append(keep, w)
	}
	c.waiters = keep
}

// awaitTimer waits until someone waits on the clock for d.
func (c *fakeClock) awaitTimer(t *testing.T, d time.Duration) {
	t.Helper()
	timeout := time.After(20 * time.Second)
	for {
		c.mu.Lock()
		found := slices.ContainsFunc(c.waiters, func(w waiter) bool { return w.d == d })
		c.mu.Unlock()
		if found {
			return
		}
		select {
		case <-c.added:
		case <-timeout:
			t.Fatalf("nobody waited on the clock for %s", d)
		}
	}
}

// eventually waits for cond, checking every few milliseconds.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("never: %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// warnings collects OnWarning texts and lets a test wait for one.
type warnings struct {
	mu   sync.Mutex
	list []string
	ch   chan string
}

func newWarnings() *warnings { return &warnings{ch: make(chan string, 100)} }

func (w *warnings) add(s string) {
	w.mu.Lock()
	w.list = append(w.list, s)
	w.mu.Unlock()
	w.ch <- s
}

func (w *warnings) all() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return slices.Clone(w.list)
}

// await waits for a warning holding every sub.
func (w *warnings) await(t *testing.T, subs ...string) string {
	t.Helper()
	timeout := time.After(20 * time.Second)
	for {
		select {
		case s := <-w.ch:
			ok := true
			for _, sub := range subs {
				ok = ok && strings.Contains(s, sub)
			}
			if ok {
				return s
			}
		case <-timeout:
			t.Fatalf("no warning with %q; got %q", subs, w.all())
		}
	}
}

// start runs a manager over servers and closes it when the test ends.
func start(t *testing.T, opts Options, servers ...Server) (*Manager, *tool.Registry) {
	t.Helper()
	if opts.Registry == nil {
		opts.Registry = &tool.Registry{}
	}
	m, err := New(opts, servers)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	m.Start()
	return m, opts.Registry
}

// call runs one call through a real executor, as the agent does.
func call(t *testing.T, reg *tool.Registry, name string, args any) tool.Outcome {
	t.Helper()
	b, _ := json.Marshal(args)
	e := &tool.Executor{Resolve: reg.Get, Names: reg.Names, SpillDir: t.TempDir()}
	return e.Execute(context.Background(), []tool.Call{{ID: "c1", Name: name, Args: b}})[0]
}

func stateOf(m *Manager, name string) Status {
	for _, s := range m.Status() {
		if s.Name == name {
			return s
		}
	}
	return Status{}
}

// alive reports whether the process pid runs (a zombie does not).
func alive(t *testing.T, pid string) bool {
	t.Helper()
	b, err := os.ReadFile("/proc/" + strings.TrimSpace(pid) + "/stat")
	if err != nil {
		return false
	}
	// The state follows the command name in parentheses.
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i > 0 && i+2 < len(s) && s[i+2] != 'Z'
}
