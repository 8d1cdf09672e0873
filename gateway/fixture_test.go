package gateway_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hermes-go/hermes/app"
	"github.com/hermes-go/hermes/config"
	"github.com/hermes-go/hermes/gateway"
	"github.com/hermes-go/hermes/llm"
	"github.com/hermes-go/hermes/llm/llmtest"
	"github.com/hermes-go/hermes/sandbox"
)

// The test binary is its own sandbox helper, as hermes is.
func TestMain(m *testing.M) {
	sandbox.MaybeRunHelper()
	os.Exit(m.Run())
}

// memAdapter is a platform held in memory: the test pushes messages and
// clicks through the gateway's handler and reads what the bot posted.
type memAdapter struct {
	name   string
	limits gateway.Limits
	lean   bool // keep no message, count the answers (benchmarks)
	// answered counts, in lean mode, the messages sent or edited to hold
	// leanAnswer.
	answered atomic.Int64

	mu      sync.Mutex
	h       gateway.Handler
	ready   chan struct{}
	next    int
	msgs    map[string]*memMessage // by id
	order   []string
	edits   []memEdit
	uploads []gateway.File
	answers []string // replies to clicks
	menu    []gateway.Command
	fail    []error // errors the next sends return, in order
}

type memMessage struct {
	ID      string
	Chat    gateway.ChatRef
	Text    string
	Plain   bool
	Buttons [][]gateway.Button
	ReplyTo string
}

type memEdit struct {
	ID   string
	Text string
}

func newMemAdapter(name string) *memAdapter {
	return &memAdapter{name: name, ready: make(chan struct{}), msgs: map[string]*memMessage{},
		limits: gateway.Limits{MaxText: 4096, Format: "markdown", Edits: true, MaxButtonData: 64}}
}

func (a *memAdapter) Platform() string       { return a.name }
func (a *memAdapter) Limits() gateway.Limits { return a.limits }

func (a *memAdapter) Run(ctx context.Context, h gateway.Handler) error {
	a.mu.Lock()
	a.h = h
	a.mu.Unlock()
	h.State(gateway.State{Connected: true, Detail: "@mem"})
	close(a.ready)
	<-ctx.Done()
	return nil
}

func (a *memAdapter) popFail() error {
	if len(a.fail) == 0 {
		return nil
	}
	err := a.fail[0]
	a.fail = a.fail[1:]
	return err
}

func (a *memAdapter) Send(_ context.Context, m gateway.Outbound) (gateway.Sent, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if err := a.popFail(); err != nil {
		return gateway.Sent{}, err
	}
	a.next++
	id := fmt.Sprint(a.next)
	if a.lean {
		if strings.Contains(m.Text, leanAnswer) {
			a.answered.Add(1)
		}
		return gateway.Sent{MessageID: id}, nil
	}
	a.msgs[id] = &memMessage{ID: id, Chat: m.Chat, Text: m.Text, Plain: m.Plain, Buttons: m.Buttons, ReplyTo: m.ReplyTo}
	a.order = append(a.order, id)
	return gateway.Sent{MessageID: id}, nil
}

func (a *memAdapter) Edit(_ context.Context, chat gateway.ChatRef, id string, m gateway.Outbound) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if err := a.popFail(); err != nil {
		return err
	}
	old, ok := a.msgs[id]
	if a.lean {
		if strings.Contains(m.Text, leanAnswer) {
			a.answered.Add(1)
		}
		return nil
	}
	if !ok {
		return &gateway.SendError{Err: fmt.Errorf("message %s not found", id), Permanent: true}
	}
	if old.Text == m.Text && len(m.Buttons) == len(old.Buttons) {
		return &gateway.SendError{Err: fmt.Errorf("message is not modified"), NotModified: true}
	}
	old.Text, old.Buttons = m.Text, m.Buttons
	a.edits = append(a.edits, memEdit{ID: id, Text: m.Text})
	return nil
}

func (a *memAdapter) Upload(_ context.Context, chat gateway.ChatRef, f gateway.File) (gateway.Sent, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.uploads = append(a.uploads, f)
	a.next++
	return gateway.Sent{MessageID: fmt.Sprint(a.next)}, nil
}

func (a *memAdapter) Typing(context.Context, gateway.ChatRef) error { return nil }

func (a *memAdapter) SetCommands(_ context.Context, cmds []gateway.Command) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.menu = append([]gateway.Command(nil), cmds...)
	return nil
}

// messages are the bot's messages in chat, as a person sees them now.
func (a *memAdapter) messages(chat string) []memMessage {
	a.mu.Lock()
	defer a.mu.Unlock()
	var out []memMessage
	for _, id := range a.order {
		if m := a.msgs[id]; m.Chat.ChatID == chat {
			out = append(out, *m)
		}
	}
	return out
}

func (a *memAdapter) handler(t testing.TB) gateway.Handler {
	t.Helper()
	select {
	case <-a.ready:
	case <-time.After(10 * time.Second):
		t.Fatal("the adapter was not started")
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.h
}

var msgSeq int64
var msgSeqMu sync.Mutex

// dm sends text from user in their direct chat.
func (a *memAdapter) dm(t testing.TB, user, text string) string {
	t.Helper()
	return a.push(t, gateway.Inbound{Chat: gateway.ChatRef{ChatID: "dm-" + user}, ChatType: gateway.DM, UserID: user, UserName: user, Text: text, Addressed: true})
}

func (a *memAdapter) push(t testing.TB, m gateway.Inbound) string {
	t.Helper()
	if m.MessageID == "" {
		msgSeqMu.Lock()
		msgSeq++
		m.MessageID = fmt.Sprint("m", msgSeq)
		msgSeqMu.Unlock()
	}
	if err := a.handler(t).Message(context.Background(), m); err != nil {
		t.Fatalf("Message: %v", err)
	}
	return m.MessageID
}

// click presses a button as user and returns the reply they alone see.
func (a *memAdapter) click(t *testing.T, user string, msg memMessage, label string) string {
	t.Helper()
	for _, row := range msg.Buttons {
		for _, b := range row {
			if strings.HasPrefix(b.Label, label) {
				var got string
				a.handler(t).Click(context.Background(), gateway.Click{Chat: msg.Chat, MessageID: msg.ID, UserID: user, Data: b.Data,
					Answer: func(_ context.Context, text string) error { got = text; return nil }})
				return got
			}
		}
	}
	t.Fatalf("no button %q on %+v", label, msg)
	return ""
}

// fixture is a gateway over a runtime whose model is the scripted llm.
type fixture struct {
	llm   *llmtest.Server
	rt    *app.Runtime
	store *gateway.Store
	a     *memAdapter
	gw    *gateway.Gateway
	clock *fakeClock
	work  string
	home  string
	stop  func()
	done  chan error
	opts  gateway.Options
	// A reply whose text starts with "HOLD:" waits for release; its
	// request is sent on held first.
	held    chan *llmtest.Request
	release chan struct{}
	nCalls  atomic.Int64 // model calls begun (titles aside)

	logMu sync.Mutex
	log   []string // "begin <user text>", "end <user text>" of model calls
}

func (f *fixture) note(s string) {
	f.logMu.Lock()
	defer f.logMu.Unlock()
	f.log = append(f.log, s)
}

func (f *fixture) calls() []string {
	f.logMu.Lock()
	defer f.logMu.Unlock()
	return append([]string(nil), f.log...)
}

func lastUser(r *llmtest.Request) string {
	t := userTexts(r)
	if len(t) == 0 {
		return ""
	}
	return t[len(t)-1]
}

func newFixture(t testing.TB, tweak func(*gateway.Options)) *fixture {
	t.Helper()
	return newFixtureOn(t, "", tweak)
}

// newFixtureOn is newFixture with the model at modelURL ("" for the
// scripted llm).
func newFixtureOn(t testing.TB, modelURL string, tweak func(*gateway.Options), cfgTweak ...func(*config.Config)) *fixture {
	t.Helper()
	f := &fixture{llm: llmtest.NewServer(t), a: newMemAdapter("mem"), clock: newFakeClock(), work: t.TempDir(), home: t.TempDir(),
		held: make(chan *llmtest.Request, 8), release: make(chan struct{})}
	cfg := config.Default()
	cfg.Home = f.home
	if modelURL == "" {
		modelURL = f.llm.URL()
	}
	cfg.Provider, cfg.BaseURL, cfg.APIKey, cfg.Model.Name = "custom", modelURL, "sk-model", "test-model"
	for _, tw := range cfgTweak {
		tw(cfg)
	}
	rt, err := app.New(context.Background(), cfg, app.Options{Source: "gateway", Workdir: f.work, Getenv: func(string) string { return "" }})
	if err != nil {
		t.Fatal(err)
	}
	f.rt = rt
	f.store, err = gateway.OpenStore(filepath.Join(f.home, "gateway", "gateway.db"), f.clock.Now)
	if err != nil {
		t.Fatal(err)
	}
	o := gateway.Options{
		Runtime: rt, Store: f.store, Adapters: []gateway.Adapter{f.a},
		Access:               map[string]gateway.Access{"mem": {Allowed: []string{"alice", "bob"}, Admins: []string{"root"}, RequireMention: true}},
		GroupSessionsPerUser: true, Streaming: true, ToolProgress: "off",
		CacheDir: filepath.Join(f.home, "cache"), StatusPath: filepath.Join(f.home, "gateway", "status.json"),
		Now: f.clock.Now, After: f.clock.After, DrainTimeout: time.Hour,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
	}
	if tweak != nil {
		tweak(&o)
	}
	f.opts = o
	f.gw, err = gateway.New(o)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	f.done = make(chan error, 1)
	go func() { f.done <- f.gw.Run(ctx) }()
	var once sync.Once
	f.stop = func() { once.Do(func() { f.shutdown(t, cancel) }) }
	t.Cleanup(func() {
		close(f.release)
		f.stop()
		f.store.Close()
		rt.Close()
		f.llm.Close()
	})
	f.a.handler(t)
	return f
}

func (f *fixture) shutdown(t testing.TB, cancel func()) {
	{
		cancel()
		select {
		case err := <-f.done:
			if err != nil {
				t.Errorf("Run: %v", err)
			}
		case <-time.After(30 * time.Second):
			t.Error("the gateway did not stop")
		}
	}
}

// answer scripts the model: title requests get a title, the others the
// replies in order.
func (f *fixture) script(replies ...llmtest.Reply) {
	var mu sync.Mutex
	f.llm.Handle(func(r *llmtest.Request) llmtest.Reply {
		if msgs := r.Messages(); len(msgs) > 0 && strings.HasPrefix(msgs[0].Content, "You name conversations") {
			return llmtest.Reply{Text: "A Title"}
		}
		if msgs := r.Messages(); len(msgs) > 0 && strings.HasPrefix(msgs[0].Content, "You are a summarization agent") {
			f.note("summary")
			return llmtest.Reply{Text: "## Summary\nThe user likes blue."}
		}
		f.nCalls.Add(1)
		f.note("begin " + lastUser(r))
		defer f.note("end " + lastUser(r))
		mu.Lock()
		defer mu.Unlock()
		if len(replies) == 0 {
			return llmtest.Reply{Text: "(script ran out)"}
		}
		r0 := replies[0]
		replies = replies[1:]
		mu.Unlock()
		defer mu.Lock()
		if text, ok := strings.CutPrefix(r0.Text, "HOLD:"); ok {
			f.held <- r
			<-f.release
			r0.Text = text
		}
		return r0
	})
}

// modelRequests are the requests that were not for a title.
func (f *fixture) modelRequests() []*llmtest.Request {
	var out []*llmtest.Request
	for _, r := range f.llm.Requests() {
		if msgs := r.Messages(); len(msgs) > 0 && strings.HasPrefix(msgs[0].Content, "You name conversations") {
			continue
		}
		out = append(out, r)
	}
	return out
}

// eventually polls cond until it holds; the gateway works on goroutines
// of its own and real SQLite.
func eventually(t testing.TB, what string, cond func() bool) {
	t.Helper()
	within(t, 20*time.Second, what, cond)
}

func within(t testing.TB, d time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for: %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func lastText(msgs []memMessage) string {
	if len(msgs) == 0 {
		return ""
	}
	return msgs[len(msgs)-1].Text
}

func userTexts(r *llmtest.Request) []string {
	var out []string
	for _, m := range r.Messages() {
		if m.Role == llm.RoleUser {
			out = append(out, m.Content)
		}
	}
	return out
}

// fakeClock is a clock the test moves; After fires when it passes.
type fakeClock struct {
	mu      sync.Mutex
	now     time.Time
	waiters []waiter
}

type waiter struct {
	at time.Time
	ch chan time.Time
}

func newFakeClock() *fakeClock {
	return &fakeClock{now: time.Date(2026, 12, 6, 9, 0, 0, 0, time.UTC)}
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
	c.waiters = append(c.waiters, waiter{at: c.now.Add(d), ch: ch})
	return ch
}

// Advance moves the clock and fires the timers it passed.
func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
	kept := c.waiters[:0]
	for _, w := range c.waiters {
		if !w.at.After(c.now) {
			w.ch <- c.now
		} else {
			kept = append(kept, w)
		}
	}
	c.waiters = kept
}

// Waiting is how many timers are set.
func (c *fakeClock) Waiting() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.waiters)
}
