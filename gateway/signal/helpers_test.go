package signal

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/hermes-go/hermes/gateway"
	"github.com/hermes-go/hermes/gateway/signal/signaltest"
)

var (
	alice = signaltest.Person{Number: "+15550000001", UUID: "a1111111-1111-4111-8111-111111111111", Name: "Alice"}
	bob   = signaltest.Person{Number: "+15550000002", UUID: "b2222222-2222-4222-8222-222222222222", Name: "Bob"}
	// hidden hides her number: only her UUID comes.
	hidden = signaltest.Person{UUID: "c3333333-3333-4333-8333-333333333333", Name: "Carol"}
)

const wait = 10 * time.Second

// recorder is a gateway.Handler keeping what it is handed; refuse makes
// Message fail while it returns true.
type recorder struct {
	mu      sync.Mutex
	changed chan struct{}
	msgs    []gateway.Inbound
	clicks  []gateway.Click
	states  []gateway.State
	refuse  func(gateway.Inbound) bool
}

func newRecorder() *recorder { return &recorder{changed: make(chan struct{})} }

func (r *recorder) notify() {
	close(r.changed)
	r.changed = make(chan struct{})
}

func (r *recorder) Message(_ context.Context, m gateway.Inbound) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.refuse != nil && r.refuse(m) {
		r.notify()
		return errors.New("refused")
	}
	r.msgs = append(r.msgs, m)
	r.notify()
	return nil
}

func (r *recorder) Click(_ context.Context, c gateway.Click) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.clicks = append(r.clicks, c)
	r.notify()
}

func (r *recorder) State(s gateway.State) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.states = append(r.states, s)
	r.notify()
}

// waitFor waits until cond (called with r.mu held) holds.
func (r *recorder) waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.NewTimer(wait)
	defer deadline.Stop()
	for {
		r.mu.Lock()
		ok, changed := cond(), r.changed
		r.mu.Unlock()
		if ok {
			return
		}
		select {
		case <-changed:
		case <-deadline.C:
			t.Fatalf("%s: not within %s", what, wait)
		}
	}
}

func (r *recorder) messages() []gateway.Inbound {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]gateway.Inbound(nil), r.msgs...)
}

func (r *recorder) connected() bool {
	return len(r.states) > 0 && r.states[len(r.states)-1].Connected
}

// start runs an adapter on a fake daemon until the test ends, and
// returns once it is connected.
func start(t *testing.T, srv *signaltest.Server, kv gateway.KV) (*Adapter, *recorder) {
	t.Helper()
	var stop func()
	return startStoppable(t, srv, kv, &stop)
}

// startStoppable is start, and sets *stop to end the Run earlier.
func startStoppable(t *testing.T, srv *signaltest.Server, kv gateway.KV, stop *func()) (*Adapter, *recorder) {
	t.Helper()
	a, err := New(Options{HTTPURL: srv.URL(), Account: srv.Account(), KV: kv, Backoff: 10 * time.Millisecond, MaxBackoff: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	h := newRecorder()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- a.Run(ctx, h) }()
	*stop = sync.OnceFunc(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Run: %v", err)
		}
	})
	t.Cleanup(*stop)
	h.waitFor(t, "connected", h.connected)
	return a, h
}
