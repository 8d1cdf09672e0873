package mattermost_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/hermes-go/hermes/gateway"
	"github.com/hermes-go/hermes/gateway/mattermost"
	"github.com/hermes-go/hermes/gateway/mattermost/mattermosttest"
)

// People and channels of the tests' server.
const (
	alice = "alice000000000000000000000"
	bob   = "bob00000000000000000000000"
	dmA   = "dmalice0000000000000000000"
	team  = "townsquare0000000000000000"
)

const wait = 10 * time.Second

// recorder is a gateway.Handler that keeps what it is handed.
type recorder struct {
	mu      sync.Mutex
	changed chan struct{}
	msgs    []gateway.Inbound
	tries   []string
	clicks  []gateway.Click
	states  []gateway.State
	store   func(gateway.Inbound) error // decides whether a message is stored
	onClick func(gateway.Click)         // answers a click, as the gateway does
}

func newRecorder() *recorder { return &recorder{changed: make(chan struct{})} }

func (r *recorder) Message(_ context.Context, m gateway.Inbound) error {
	r.mu.Lock()
	store := r.store
	r.tries = append(r.tries, m.MessageID)
	r.notifyLocked()
	r.mu.Unlock()
	if store != nil {
		if err := store(m); err != nil {
			return err
		}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.msgs = append(r.msgs, m)
	r.notifyLocked()
	return nil
}

func (r *recorder) Click(_ context.Context, c gateway.Click) {
	r.mu.Lock()
	r.clicks = append(r.clicks, c)
	on := r.onClick
	r.notifyLocked()
	r.mu.Unlock()
	if on != nil {
		on(c)
	}
}

func (r *recorder) State(s gateway.State) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.states = append(r.states, s)
	r.notifyLocked()
}

func (r *recorder) notifyLocked() {
	close(r.changed)
	r.changed = make(chan struct{})
}

func (r *recorder) messages() []gateway.Inbound {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]gateway.Inbound(nil), r.msgs...)
}

func (r *recorder) clicked() []gateway.Click {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]gateway.Click(nil), r.clicks...)
}

func (r *recorder) stateList() []gateway.State {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]gateway.State(nil), r.states...)
}

// waitFor waits until cond holds, waking on every change to r.
func (r *recorder) waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.After(wait)
	for {
		r.mu.Lock()
		ch := r.changed
		r.mu.Unlock()
		if cond() {
			return
		}
		select {
		case <-ch:
		case <-deadline:
			t.Fatalf("%s: not within %s", what, wait)
		}
	}
}

// connections counts the connected states reported.
func (r *recorder) connections() int {
	n := 0
	for _, s := range r.stateList() {
		if s.Connected {
			n++
		}
	}
	return n
}

// newServer is the fake with alice, bob, alice's DM and a team channel.
func newServer(t *testing.T) *mattermosttest.Server {
	srv := mattermosttest.NewServer(t)
	srv.AddUser(alice, "alice")
	srv.AddUser(bob, "bob")
	srv.AddChannel(dmA, "D")
	srv.AddChannel(team, "O")
	return srv
}

// newAdapter makes an adapter for srv with quick reconnects.
func newAdapter(t *testing.T, srv *mattermosttest.Server, kv gateway.KV) *mattermost.Adapter {
	t.Helper()
	a, err := mattermost.New(mattermost.Options{URL: srv.URL(), Token: mattermosttest.Token, KV: kv,
		Backoff: 10 * time.Millisecond, MaxBackoff: 50 * time.Millisecond, ClickWait: 2 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// run runs a until the test ends, and waits until it is connected.
func run(t *testing.T, a *mattermost.Adapter, h *recorder) (stop func() error) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	before := h.connections()
	go func() { done <- a.Run(ctx, h) }()
	var once sync.Once
	var err error
	stop = func() error {
		once.Do(func() {
			cancel()
			select {
			case err = <-done:
			case <-time.After(wait):
				err = errors.New("Run did not return after its context ended")
			}
		})
		return err
	}
	t.Cleanup(func() { _ = stop() })
	h.waitFor(t, "connected", func() bool { return h.connections() > before })
	return stop
}

// waitServer waits until cond holds on srv.
func waitServer(t *testing.T, srv *mattermosttest.Server, what string, cond func() bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	if err := srv.Wait(ctx, cond); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

func newAdapterWithToken(srv *mattermosttest.Server, token string) (*mattermost.Adapter, error) {
	return mattermost.New(mattermost.Options{URL: srv.URL(), Token: token, Backoff: 10 * time.Millisecond})
}

// newAdapterClickWait answers presses at once, without waiting for the
// handler's answer.
func newAdapterClickWait(t *testing.T, srv *mattermosttest.Server) *mattermost.Adapter {
	t.Helper()
	a, err := mattermost.New(mattermost.Options{URL: srv.URL(), Token: mattermosttest.Token, ClickWait: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	return a
}
