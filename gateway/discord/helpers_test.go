package discord

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/hermes-go/hermes/gateway"
	"github.com/hermes-go/hermes/gateway/discord/discordtest"
)

// wait bounds every wait for something the adapter does over a real
// socket; nothing sleeps, the tests block on channels until this.
const wait = 15 * time.Second

var (
	alice = discordtest.User{ID: "2000000000000000001", Username: "alice", GlobalName: "Alice"}
	bob   = discordtest.User{ID: "2000000000000000002", Username: "bob"}
)

// recorder is the gateway's side of the adapter in these tests.
type recorder struct {
	msgs   chan gateway.Inbound
	clicks chan gateway.Click
	states chan gateway.State

	mu      sync.Mutex
	history []gateway.State
	refuse  map[string]bool // message texts Message refuses, as a failing store would
}

func newRecorder() *recorder {
	return &recorder{
		msgs:   make(chan gateway.Inbound, 100),
		clicks: make(chan gateway.Click, 100),
		states: make(chan gateway.State, 100),
	}
}

func (r *recorder) Message(_ context.Context, m gateway.Inbound) error {
	r.mu.Lock()
	refused := r.refuse[m.Text]
	r.mu.Unlock()
	if refused {
		return errors.New("the store is full")
	}
	r.msgs <- m
	return nil
}

// refuseText makes Message fail for messages with this text.
func (r *recorder) refuseText(text string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.refuse == nil {
		r.refuse = map[string]bool{}
	}
	r.refuse[text] = true
}

func (r *recorder) Click(_ context.Context, c gateway.Click) { r.clicks <- c }

func (r *recorder) State(s gateway.State) {
	r.mu.Lock()
	r.history = append(r.history, s)
	r.mu.Unlock()
	r.states <- s
}

// message waits for the next Inbound.
func (r *recorder) message(t *testing.T) gateway.Inbound {
	t.Helper()
	select {
	case m := <-r.msgs:
		return m
	case <-time.After(wait):
		t.Fatal("no message reached the handler")
	}
	return gateway.Inbound{}
}

// noMessage checks nothing more reached the handler, once the fake has
// delivered a marker message after everything else: events arrive in
// order, so whatever came before the marker is already here.
func (r *recorder) noMessageBefore(t *testing.T, srv *discordtest.Server, channelID string) {
	t.Helper()
	marker := srv.Push(discordtest.Message{ChannelID: channelID, Author: bob, Content: "marker"})
	if m := r.message(t); m.MessageID != marker.ID {
		t.Fatalf("an unexpected message reached the handler: %+v", m)
	}
}

func (r *recorder) click(t *testing.T) gateway.Click {
	t.Helper()
	select {
	case c := <-r.clicks:
		return c
	case <-time.After(wait):
		t.Fatal("no click reached the handler")
	}
	return gateway.Click{}
}

// state waits for a State report matching want.
func (r *recorder) state(t *testing.T, want func(gateway.State) bool, what string) gateway.State {
	t.Helper()
	deadline := time.After(wait)
	for {
		select {
		case s := <-r.states:
			if want(s) {
				return s
			}
		case <-deadline:
			t.Fatalf("the adapter never reported %s; it reported %+v", what, r.reported())
		}
	}
}

func (r *recorder) connected(t *testing.T) gateway.State {
	t.Helper()
	return r.state(t, func(s gateway.State) bool { return s.Connected }, "connected")
}

func (r *recorder) reported() []gateway.State {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]gateway.State(nil), r.history...)
}

// running is an adapter whose Run runs until the test ends.
type running struct {
	a      *Adapter
	rec    *recorder
	cancel context.CancelFunc
	done   chan error
}

// start runs an adapter against srv and waits until it is connected.
func start(t *testing.T, srv *discordtest.Server, tune ...func(*Options)) *running {
	t.Helper()
	r := launch(t, srv, tune...)
	r.rec.connected(t)
	return r
}

// launch runs an adapter against srv without waiting.
func launch(t *testing.T, srv *discordtest.Server, tune ...func(*Options)) *running {
	t.Helper()
	return run(t, newAdapter(t, srv, tune...))
}

// newAdapter makes an adapter for srv that logs into the test.
func newAdapter(t *testing.T, srv *discordtest.Server, tune ...func(*Options)) *Adapter {
	t.Helper()
	w := &testWriter{t: t}
	t.Cleanup(w.close) // runs after Run stopped: cleanups run last first
	o := Options{
		Token: srv.Token(), APIURL: srv.URL(), Backoff: 10 * time.Millisecond,
		Logger: slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: slog.LevelDebug})),
	}
	for _, f := range tune {
		f(&o)
	}
	a, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// run runs a until the test ends.
func run(t *testing.T, a *Adapter) *running {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	r := &running{a: a, rec: newRecorder(), cancel: cancel, done: make(chan error, 1)}
	go func() { r.done <- a.Run(ctx, r.rec) }()
	t.Cleanup(func() { r.stop(t) })
	return r
}

// stop ends Run and checks it returned nil.
func (r *running) stop(t *testing.T) {
	t.Helper()
	r.cancel()
	select {
	case err, ok := <-r.done:
		if ok && err != nil {
			t.Errorf("Run: %v", err)
		}
		if ok {
			close(r.done)
		}
	case <-time.After(wait):
		t.Error("Run did not return after its context ended")
	}
}

// testWriter logs into the test until it ends.
type testWriter struct {
	t      *testing.T
	mu     sync.Mutex
	closed bool
}

func (w *testWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.closed {
		w.t.Log(string(p))
	}
	return len(p), nil
}

func (w *testWriter) close() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.closed = true
}

// mapKV is a gateway.KV for tests.
type mapKV struct {
	mu sync.Mutex
	m  map[string]string
}

func (k *mapKV) Get(_ context.Context, key string) (string, bool, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	v, ok := k.m[key]
	return v, ok, nil
}

func (k *mapKV) Set(_ context.Context, key, value string) error {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.m == nil {
		k.m = map[string]string{}
	}
	k.m[key] = value
	return nil
}

func sendErr(t *testing.T, err error) *gateway.SendError {
	t.Helper()
	se, ok := gateway.AsSendError(err)
	if !ok {
		t.Fatalf("want a *gateway.SendError, got %T: %v", err, err)
	}
	return se
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(fmt.Sprintf("unexpected error: %v", err))
	}
	return v
}
