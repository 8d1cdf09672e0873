package email

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hermes-go/hermes/gateway"
	"github.com/hermes-go/hermes/gateway/email/emailtest"
)

const wait = 10 * time.Second

// recorder is a gateway.Handler keeping what it is handed.
type recorder struct {
	mu      sync.Mutex
	changed chan struct{}
	msgs    []gateway.Inbound
	clicks  []gateway.Click
	states  []gateway.State
}

func newRecorder() *recorder { return &recorder{changed: make(chan struct{})} }

func (r *recorder) Message(_ context.Context, m gateway.Inbound) error {
	r.mu.Lock()
	defer r.mu.Unlock()
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

func (r *recorder) notify() {
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

func (r *recorder) lastState() gateway.State {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.states) == 0 {
		return gateway.State{}
	}
	return r.states[len(r.states)-1]
}

// waitFor waits until cond holds, waking on each change.
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
			r.mu.Lock()
			t.Logf("states: %+v", r.states)
			r.mu.Unlock()
			t.Fatalf("%s: not within %s", what, wait)
		}
	}
}

// fixture is a mail server, an adapter on it and its handler.
type fixture struct {
	srv  *emailtest.Server
	a    *Adapter
	h    *recorder
	kv   gateway.KV
	n    int
	logs logBuffer
}

// logBuffer keeps the adapter's log lines.
type logBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *logBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

func newFixture(t *testing.T, o emailtest.Options) *fixture {
	t.Helper()
	f := &fixture{srv: emailtest.NewServer(t, o), kv: gateway.NewMemoryKV()}
	f.a = f.adapter(t)
	return f
}

func (f *fixture) adapter(t *testing.T) *Adapter {
	t.Helper()
	a, err := New(Options{IMAPURL: f.srv.IMAPURL(), SMTPURL: f.srv.SMTPURL(), User: f.srv.User(), Password: f.srv.Password(),
		Logger: slog.New(slog.NewTextHandler(tlog{t, &f.logs}, nil)), KV: f.kv, Backoff: 10 * time.Millisecond, MaxBackoff: 50 * time.Millisecond, PollInterval: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// run runs the adapter until the test ends (or stop is called), and
// returns once it is connected.
func (f *fixture) run(t *testing.T) (stop func()) {
	t.Helper()
	f.h = newRecorder()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- f.a.Run(ctx, f.h) }()
	var once sync.Once
	stop = func() {
		once.Do(func() {
			cancel()
			if err := <-done; err != nil {
				t.Errorf("Run: %v", err)
			}
		})
	}
	t.Cleanup(stop)
	f.h.waitFor(t, "connected", func() bool { return f.h.lastState().Connected })
	return stop
}

// mail is a mail from alice to the bot, with a fresh Message-ID.
func (f *fixture) mail(text string) emailtest.Mail {
	f.n++
	return emailtest.Mail{From: "Alice <alice@example.org>", To: []string{f.srv.Address()}, Subject: "Hello",
		MessageID: fmt.Sprintf("<m%d@example.org>", f.n), Text: text}
}

func (f *fixture) deliver(t *testing.T, m emailtest.Mail) { f.srv.Deliver(t, m.Bytes()) }

func (f *fixture) waitMessages(t *testing.T, n int) []gateway.Inbound {
	t.Helper()
	f.h.waitFor(t, fmt.Sprintf("%d messages", n), func() bool { return len(f.h.messages()) >= n })
	return f.h.messages()
}

func (f *fixture) waitSent(t *testing.T, n int) []emailtest.Sent {
	t.Helper()
	if !f.srv.WaitFor(wait, func() bool { return len(f.srv.Sent()) >= n }) {
		t.Fatalf("%d mails sent, want %d", len(f.srv.Sent()), n)
	}
	return f.srv.Sent()
}

// tlog writes the adapter's log into the test's, and keeps it.
type tlog struct {
	t    *testing.T
	keep *logBuffer
}

func (l tlog) Write(b []byte) (int, error) {
	l.t.Log(strings.TrimSpace(string(b)))
	l.keep.mu.Lock()
	defer l.keep.mu.Unlock()
	return l.keep.b.Write(b)
}
