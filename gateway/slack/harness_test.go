package slack_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hermes-go/hermes/gateway"
	"github.com/hermes-go/hermes/gateway/slack"
	"github.com/hermes-go/hermes/gateway/slack/slacktest"
)

// recorder is a gateway.Handler that keeps what it is handed.
type recorder struct {
	mu      sync.Mutex
	changed chan struct{}
	msgs    []gateway.Inbound
	tries   []string // every MessageID offered, stored or not
	clicks  []gateway.Click
	states  []gateway.State
	// store, when set, decides whether a message is stored.
	store func(gateway.Inbound) error
}

func newRecorder() *recorder { return &recorder{changed: make(chan struct{})} }

func (r *recorder) Message(ctx context.Context, m gateway.Inbound) error {
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

func (r *recorder) Click(ctx context.Context, c gateway.Click) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.clicks = append(r.clicks, c)
	r.notifyLocked()
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

func (r *recorder) offered() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.tries...)
}

func (r *recorder) clicked() []gateway.Click {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]gateway.Click(nil), r.clicks...)
}

func (r *recorder) stateLog() []gateway.State {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]gateway.State(nil), r.states...)
}

func (r *recorder) last() gateway.State {
	s := r.stateLog()
	if len(s) == 0 {
		return gateway.State{}
	}
	return s[len(s)-1]
}

// sawState reports whether a state with detail containing part was reported.
func (r *recorder) sawState(connected bool, part string) bool {
	for _, s := range r.stateLog() {
		if s.Connected == connected && strings.Contains(s.Detail, part) {
			return true
		}
	}
	return false
}

// waitFor blocks until cond holds, waking on every change of the fake
// and of the recorder; it fails the test after 10 s.
func waitFor(t *testing.T, srv *slacktest.Server, rec *recorder, what string, cond func() bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for {
		rec.mu.Lock()
		recCh := rec.changed
		rec.mu.Unlock()
		var srvCh <-chan struct{}
		if srv != nil {
			srvCh = srv.Changed()
		}
		if cond() {
			return
		}
		select {
		case <-recCh:
		case <-srvCh:
		case <-ctx.Done():
			t.Fatalf("timed out waiting for %s", what)
		}
	}
}

type fixture struct {
	srv  *slacktest.Server
	rec  *recorder
	a    *slack.Adapter
	stop func() error // ends Run and returns its error
}

// start runs an adapter against srv in socket mode until the test ends.
func start(t *testing.T, srv *slacktest.Server, change func(*slack.Options)) *fixture {
	t.Helper()
	o := slack.Options{
		BotToken: slacktest.BotToken, AppToken: slacktest.AppToken, APIURL: srv.APIURL(),
		Backoff: time.Millisecond, MaxBackoff: 10 * time.Millisecond,
	}
	if change != nil {
		change(&o)
	}
	a, err := slack.New(o)
	if err != nil {
		t.Fatal(err)
	}
	rec := newRecorder()
	return run(t, srv, a, rec)
}

func run(t *testing.T, srv *slacktest.Server, a *slack.Adapter, rec *recorder) *fixture {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- a.Run(ctx, rec) }()
	var once sync.Once
	var runErr error
	stop := func() error {
		once.Do(func() {
			cancel()
			select {
			case runErr = <-done:
			case <-time.After(10 * time.Second):
				runErr = errors.New("Run did not return after its context ended")
			}
		})
		return runErr
	}
	t.Cleanup(func() {
		if err := stop(); err != nil {
			t.Errorf("Run: %v", err)
		}
	})
	return &fixture{srv: srv, rec: rec, a: a, stop: stop}
}

// connected waits for the socket's hello.
func (f *fixture) connected(t *testing.T) {
	t.Helper()
	waitFor(t, f.srv, f.rec, "a connected state", func() bool { return f.rec.last().Connected })
}

// handled waits until n messages were stored.
func (f *fixture) handled(t *testing.T, n int) []gateway.Inbound {
	t.Helper()
	waitFor(t, f.srv, f.rec, "messages stored", func() bool { return len(f.rec.messages()) >= n })
	return f.rec.messages()
}

// acked waits until every envelope of p is acknowledged.
func (f *fixture) acked(t *testing.T, p slacktest.Posted) {
	t.Helper()
	waitFor(t, f.srv, f.rec, "acks of "+strings.Join(p.Envelopes, ", "), func() bool {
		for _, e := range p.Envelopes {
			if !f.srv.Acked(e) {
				return false
			}
		}
		return true
	})
}
