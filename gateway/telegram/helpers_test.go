package telegram_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hermes-go/hermes/gateway"
	"github.com/hermes-go/hermes/gateway/telegram"
	"github.com/hermes-go/hermes/gateway/telegram/telegramtest"
)

// wait bounds every wait for the adapter's network round trips.
const wait = 10 * time.Second

var (
	alice = telegramtest.User{ID: 1001, FirstName: "Alice", LastName: "Liddell", Username: "alice"}
	bob   = telegramtest.User{ID: 1002, FirstName: "Bob"}
)

// handler is the gateway as the adapter sees it: it records what it is
// handed, and refuses a message when fail says so.
type handler struct {
	mu       sync.Mutex
	changed  chan struct{}
	messages []gateway.Inbound
	clicks   []gateway.Click
	states   []gateway.State
	fail     func(gateway.Inbound) error
	onClick  func(gateway.Click)
	onTaken  func(gateway.Inbound)
}

func newHandler() *handler { return &handler{changed: make(chan struct{})} }

func (h *handler) notify() {
	close(h.changed)
	h.changed = make(chan struct{})
}

func (h *handler) Message(_ context.Context, m gateway.Inbound) error {
	h.mu.Lock()
	fail, taken := h.fail, h.onTaken
	h.mu.Unlock()
	if fail != nil {
		if err := fail(m); err != nil {
			return err
		}
	}
	h.mu.Lock()
	h.messages = append(h.messages, m)
	h.notify()
	h.mu.Unlock()
	if taken != nil {
		taken(m)
	}
	return nil
}

func (h *handler) Click(_ context.Context, c gateway.Click) {
	h.mu.Lock()
	h.clicks = append(h.clicks, c)
	on := h.onClick
	h.notify()
	h.mu.Unlock()
	if on != nil {
		on(c)
	}
}

func (h *handler) State(s gateway.State) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.states = append(h.states, s)
	h.notify()
}

func (h *handler) Messages() []gateway.Inbound {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]gateway.Inbound(nil), h.messages...)
}

func (h *handler) Clicks() []gateway.Click {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]gateway.Click(nil), h.clicks...)
}

func (h *handler) States() []gateway.State {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]gateway.State(nil), h.states...)
}

// lastState returns the last state reported.
func (h *handler) lastState() gateway.State {
	s := h.States()
	if len(s) == 0 {
		return gateway.State{}
	}
	return s[len(s)-1]
}

// waitFor waits until cond holds, woken by everything the handler is
// handed.
func (h *handler) waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.NewTimer(wait)
	defer deadline.Stop()
	for {
		h.mu.Lock()
		changed := h.changed
		h.mu.Unlock()
		if cond() {
			return
		}
		select {
		case <-changed:
		case <-deadline.C:
			t.Fatalf("timed out waiting for %s; states %+v, messages %+v", what, h.States(), h.Messages())
		}
	}
}

func (h *handler) waitMessages(t *testing.T, n int) []gateway.Inbound {
	t.Helper()
	h.waitFor(t, "messages", func() bool { return len(h.Messages()) >= n })
	return h.Messages()
}

func (h *handler) waitConnected(t *testing.T) {
	t.Helper()
	h.waitFor(t, "connected", func() bool { return h.lastState().Connected })
}

// options points an adapter at the fake with waits short enough for
// tests.
func options(srv *telegramtest.Server) telegram.Options {
	return telegram.Options{
		Token:       srv.Token(),
		APIURL:      srv.URL(),
		Backoff:     10 * time.Millisecond,
		MaxBackoff:  50 * time.Millisecond,
		PollTimeout: 10 * time.Second,
	}
}

// running is an adapter's Run in the background.
type running struct {
	*telegram.Adapter
	cancel context.CancelFunc
	done   chan struct{} // closed when Run returned
	err    error         // what Run returned
}

// start runs an adapter until stop or the end of the test.
func start(t *testing.T, o telegram.Options, h gateway.Handler) *running {
	t.Helper()
	a, err := telegram.New(o)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	r := &running{Adapter: a, cancel: cancel, done: make(chan struct{})}
	go func() {
		r.err = a.Run(ctx, h)
		close(r.done)
	}()
	t.Cleanup(func() { r.stop(t) })
	return r
}

// stop ends Run and returns what it returned.
func (r *running) stop(t *testing.T) error {
	t.Helper()
	r.cancel()
	select {
	case <-r.done:
		return r.err
	case <-time.After(wait):
		t.Fatal("Run did not return after its context ended")
		return nil
	}
}

// memKV is the gateway's store as far as the adapter uses it.
type memKV struct {
	mu sync.Mutex
	m  map[string]string
}

func newKV() *memKV { return &memKV{m: map[string]string{}} }

func (k *memKV) Get(_ context.Context, key string) (string, bool, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	v, ok := k.m[key]
	return v, ok, nil
}

func (k *memKV) Set(_ context.Context, key, value string) error {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.m[key] = value
	return nil
}

func (k *memKV) get(key string) string {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.m[key]
}

// setWebhook sets a webhook on the fake as another program would.
func setWebhook(t *testing.T, srv *telegramtest.Server, url, secret string) {
	t.Helper()
	body := fmt.Sprintf(`{"url":%q,"secret_token":%q}`, url, secret)
	resp, err := http.Post(srv.URL()+"/bot"+srv.Token()+"/setWebhook", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("setWebhook: %s", resp.Status)
	}
}

var errTest = errors.New("store is busy")
