package matrix

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hermes-go/hermes/gateway"
	"github.com/hermes-go/hermes/gateway/matrix/matrixtest"
)

const wait = 10 * time.Second

var (
	alice   = matrixtest.User{ID: "@alice:test", Name: "Alice"}
	bob     = matrixtest.User{ID: "@bob:test", Name: "Bob"}
	mallory = matrixtest.User{ID: "@mallory:test", Name: "Mallory"}
)

// recorder is a gateway.Handler that keeps what it was handed.
type recorder struct {
	srv *matrixtest.Server

	mu       sync.Mutex
	messages []gateway.Inbound
	clicks   []gateway.Click
	states   []gateway.State
	refuse   int // Message refuses this many messages before taking them
}

func (r *recorder) Message(ctx context.Context, m gateway.Inbound) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.refuse > 0 {
		r.refuse--
		return errRefused
	}
	r.messages = append(r.messages, m)
	r.srv.Touch()
	return nil
}

var errRefused = errString("the store is full")

func (r *recorder) Click(ctx context.Context, c gateway.Click) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.clicks = append(r.clicks, c)
	r.srv.Touch()
}

func (r *recorder) State(s gateway.State) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.states = append(r.states, s)
	r.srv.Touch()
}

func (r *recorder) texts() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	for _, m := range r.messages {
		out = append(out, m.Text)
	}
	return out
}

func (r *recorder) inbound() []gateway.Inbound {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]gateway.Inbound(nil), r.messages...)
}

func (r *recorder) lastState() gateway.State {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.states) == 0 {
		return gateway.State{}
	}
	return r.states[len(r.states)-1]
}

// syncLog is a Logger's output, safe to read while the adapter writes.
type syncLog struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (l *syncLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

func (l *syncLog) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}

// running is an adapter's Run in a goroutine.
type running struct {
	a    *Adapter
	h    *recorder
	log  *syncLog
	stop func() error
}

// start runs an adapter on srv with kv, and waits until it is connected.
func start(t *testing.T, srv *matrixtest.Server, kv gateway.KV, opts ...func(*Options)) *running {
	t.Helper()
	l := &syncLog{}
	o := Options{Homeserver: srv.URL(), AccessToken: srv.Token(), KV: kv, Inviters: []string{alice.ID},
		Logger: slog.New(slog.NewTextHandler(l, nil)), Backoff: 10 * time.Millisecond, MaxBackoff: 50 * time.Millisecond,
		SyncTimeout: 2 * time.Second}
	for _, f := range opts {
		f(&o)
	}
	a, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	h := &recorder{srv: srv}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- a.Run(ctx, h) }()
	stopped := false
	var runErr error
	stop := func() error {
		if !stopped {
			stopped = true
			cancel()
			runErr = <-done
		}
		return runErr
	}
	t.Cleanup(func() { stop() })
	if !srv.WaitFor(wait, func() bool { return h.lastState().Connected }) {
		t.Fatalf("never connected; log:\n%s", l.String())
	}
	return &running{a: a, h: h, log: l, stop: stop}
}

// waitTexts waits until the handler took exactly want, in order.
func (r *running) waitTexts(t *testing.T, srv *matrixtest.Server, want ...string) {
	t.Helper()
	if !srv.WaitFor(wait, func() bool { return strings.Join(r.h.texts(), "|") == strings.Join(want, "|") }) {
		t.Fatalf("the handler took %q, want %q; log:\n%s", r.h.texts(), want, r.log.String())
	}
}

// botMessages are the bot's messages in a room.
func botMessages(srv *matrixtest.Server, room string) []matrixtest.Message {
	var out []matrixtest.Message
	for _, m := range srv.Messages(room) {
		if m.Sender == srv.Bot().ID {
			out = append(out, m)
		}
	}
	return out
}
