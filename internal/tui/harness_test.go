package tui

import (
	"context"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/hermes-go/hermes/app"
	"github.com/hermes-go/hermes/config"
	"github.com/hermes-go/hermes/internal/mcptest"
	"github.com/hermes-go/hermes/llm/llmtest"
	"github.com/hermes-go/hermes/sandbox"
)

// The test binary is its own sandbox helper, as hermes is.
func TestMain(m *testing.M) {
	sandbox.MaybeRunHelper()
	mcptest.MaybeServe() // the test binary is also an MCP server
	os.Exit(m.Run())
}

// harness drives a Model the way Bubble Tea does: messages in, commands
// run on goroutines, their messages back in. Ticks are dropped (the
// clock is fake; nothing waits on wall time).
type harness struct {
	t    *testing.T
	m    *Model
	rt   *app.Runtime
	srv  *llmtest.Server
	msgs chan tea.Msg
	quit bool
	now  *fakeClock
}

// fakeClock advances a millisecond on every reading: time passes as the
// UI works, without waiting.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(time.Millisecond)
	return c.t
}

func (c *fakeClock) advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

type setup struct {
	cfg  func(*config.Config)
	opts func(*app.Options)
	conv func(*app.ConversationOptions)
	home string
	hist string

	profile string // named by the status line
}

func newHarness(t *testing.T, srv *llmtest.Server, s setup) *harness {
	t.Helper()
	cfg := config.Default()
	cfg.Home = s.home
	if cfg.Home == "" {
		cfg.Home = t.TempDir()
	}
	cfg.Provider, cfg.BaseURL, cfg.APIKey, cfg.Model.Name = "custom", srv.URL(), "sk-test", "test-model"
	if s.cfg != nil {
		s.cfg(cfg)
	}
	h := &harness{t: t, srv: srv, msgs: make(chan tea.Msg, 4096), now: &fakeClock{t: time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)}}
	bridge := &Bridge{}
	opts := app.Options{Source: "cli", Workdir: t.TempDir(), Getenv: func(string) string { return "" }}
	if s.opts != nil {
		s.opts(&opts)
	}
	rt, err := app.New(context.Background(), cfg, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rt.Close() }) // interrupts a turn still running and waits for it
	co := app.ConversationOptions{Approve: bridge.Approve, Clarify: bridge.Clarify}
	if s.conv != nil {
		s.conv(&co)
	}
	c, err := rt.Open(context.Background(), co)
	if err != nil {
		t.Fatal(err)
	}
	h.rt = rt
	h.m = New(Options{Conversation: c, Bridge: bridge, Version: "test", HistoryPath: s.hist, Now: h.now.Now, Profile: s.profile}, h.send)
	c.Observe(h.m.feed.observe)
	h.update(tea.WindowSizeMsg{Width: 100, Height: 40})
	return h
}

func (h *harness) send(msg tea.Msg) { h.msgs <- msg }

// update hands msg to the model and runs the command it returns.
func (h *harness) update(msg tea.Msg) {
	if _, ok := msg.(tea.QuitMsg); ok {
		h.quit = true
		return
	}
	_, cmd := h.m.Update(msg)
	h.run(cmd)
}

func (h *harness) run(cmd tea.Cmd) {
	if cmd == nil {
		return
	}
	go func() {
		msg := cmd()
		switch msg := msg.(type) {
		case tea.BatchMsg:
			for _, c := range msg {
				h.run(c)
			}
		case tickMsg, nil:
		default:
			h.send(msg)
		}
	}()
}

// until handles messages until cond holds; it fails the test after a
// few seconds.
func (h *harness) until(what string, cond func() bool) {
	h.t.Helper()
	deadline := time.After(10 * time.Second)
	poll := time.NewTicker(5 * time.Millisecond) // cond may turn on outside the UI
	defer poll.Stop()
	for !cond() {
		select {
		case msg := <-h.msgs:
			h.update(msg)
		case <-poll.C:
		case <-deadline:
			h.t.Fatalf("waiting for %s; the screen:\n%s", what, h.screen())
		}
	}
}

// idle waits until nothing runs and no message is left.
func (h *harness) idle() {
	h.t.Helper()
	h.until("the UI to be idle", func() bool {
		return h.m.running == "" && h.m.commandsRunning == 0 && len(h.msgs) == 0 && !h.conv().Busy()
	})
}

// conv is the conversation the UI shows now.
func (h *harness) conv() *app.Conversation { return h.m.conv() }

// screen is the view without styles.
func (h *harness) screen() string {
	return ansi.Strip(h.m.View().Content)
}

// conversation is every line of the conversation, not only the visible
// ones.
func (h *harness) conversation() string {
	h.m.View()
	return ansi.Strip(strings.Join(h.m.frame, "\n"))
}

func (h *harness) typeText(s string) {
	for _, r := range s {
		h.update(tea.KeyPressMsg{Code: r, Text: string(r)})
	}
}

func (h *harness) press(k tea.KeyPressMsg) { h.update(k) }

// receive waits for a value on ch while the UI goes on.
func receive[T any](h *harness, what string, ch <-chan T) T {
	h.t.Helper()
	var v T
	h.until(what, func() bool {
		select {
		case v = <-ch:
			return true
		default:
			return false
		}
	})
	return v
}

var (
	enter     = tea.KeyPressMsg{Code: tea.KeyEnter}
	ctrlC     = tea.KeyPressMsg{Code: 'c', Mod: tea.ModCtrl}
	ctrlD     = tea.KeyPressMsg{Code: 'd', Mod: tea.ModCtrl}
	ctrlJ     = tea.KeyPressMsg{Code: 'j', Mod: tea.ModCtrl}
	shiftEnt  = tea.KeyPressMsg{Code: tea.KeyEnter, Mod: tea.ModShift}
	up        = tea.KeyPressMsg{Code: tea.KeyUp}
	down      = tea.KeyPressMsg{Code: tea.KeyDown}
	tab       = tea.KeyPressMsg{Code: tea.KeyTab}
	esc       = tea.KeyPressMsg{Code: tea.KeyEscape}
	ctrlO     = tea.KeyPressMsg{Code: 'o', Mod: tea.ModCtrl}
	letter    = func(r rune) tea.KeyPressMsg { return tea.KeyPressMsg{Code: r, Text: string(r)} }
	lastUser  = func(r *llmtest.Request) string { m := r.Messages(); return m[len(m)-1].Content }
	requestsN = func(s *llmtest.Server) int { return len(chatRequests(s)) }
)

// chatRequests are the requests of the conversation (not the background
// title's).
func chatRequests(s *llmtest.Server) []*llmtest.Request {
	var out []*llmtest.Request
	for _, r := range s.Requests() {
		if !strings.Contains(lastUser(r), "Write the title for this conversation") {
			out = append(out, r)
		}
	}
	return out
}

// say types a line and sends it.
func (h *harness) say(s string) {
	h.typeText(s)
	h.press(enter)
}
