package app_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hermes-go/hermes/agent"
	"github.com/hermes-go/hermes/app"
	"github.com/hermes-go/hermes/config"
	"github.com/hermes-go/hermes/llm"
	"github.com/hermes-go/hermes/llm/llmtest"
	"github.com/hermes-go/hermes/session"
	"github.com/hermes-go/hermes/tool/approval"
)

func TestARuntimeHoldsNoSessionUntilAConversationOpens(t *testing.T) {
	srv := llmtest.NewServer(t)
	rt := newRuntime(t, newConfig(t, srv.URL()), app.Options{})
	list, err := rt.Store().List(context.Background(), session.ListOptions{})
	if err != nil || len(list) != 0 {
		t.Fatalf("sessions after New: %v %v", list, err)
	}
	srv.Enqueue(llmtest.Reply{Text: "one"}, llmtest.Reply{Text: "two"})
	a := open(t, rt, app.ConversationOptions{})
	b := open(t, rt, app.ConversationOptions{})
	if a.SessionID() == b.SessionID() {
		t.Fatal("two conversations share a session")
	}
	for _, c := range []*app.Conversation{a, b} {
		if _, err := c.Chat(context.Background(), "hi"); err != nil {
			t.Fatal(err)
		}
	}
	list, _ = rt.Store().List(context.Background(), session.ListOptions{})
	if len(list) != 2 {
		t.Fatalf("want two stored sessions, got %d", len(list))
	}
}

func TestASessionHasOneWriterAndCloseReleasesIt(t *testing.T) {
	srv := llmtest.NewServer(t)
	srv.Enqueue(llmtest.Reply{Text: "stored"})
	rt := newRuntime(t, newConfig(t, srv.URL()), app.Options{})
	a := open(t, rt, app.ConversationOptions{})
	if _, err := a.Chat(context.Background(), "hi"); err != nil {
		t.Fatal(err)
	}
	_, err := rt.Open(context.Background(), app.ConversationOptions{Resume: a.SessionID()})
	var ce *app.ConfigError
	if !errors.Is(err, session.ErrBusy) || !errors.As(err, &ce) {
		t.Fatalf("a second writer of a held session: %v", err)
	}
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	b := open(t, rt, app.ConversationOptions{Resume: a.SessionID()})
	if h := b.History(); len(h) != 2 || h[1].Content != "stored" {
		t.Fatalf("resumed history: %+v", h)
	}
	if _, err := a.Chat(context.Background(), "again"); !errors.Is(err, app.ErrConversationClosed) {
		t.Fatalf("a closed conversation ran a turn: %v", err)
	}
}

func TestAForkContinuesACopyAndLeavesTheOriginal(t *testing.T) {
	srv := llmtest.NewServer(t)
	srv.Enqueue(llmtest.Reply{Text: "first"}, llmtest.Reply{Text: "branch"})
	rt := newRuntime(t, newConfig(t, srv.URL()), app.Options{})
	a := open(t, rt, app.ConversationOptions{})
	if _, err := a.Chat(context.Background(), "hi"); err != nil {
		t.Fatal(err)
	}
	f := open(t, rt, app.ConversationOptions{Fork: a.SessionID()}) // a still holds the original
	if f.SessionID() == a.SessionID() || len(f.History()) != 2 {
		t.Fatalf("fork %s of %s: %+v", f.SessionID(), a.SessionID(), f.History())
	}
	if _, err := f.Chat(context.Background(), "go on"); err != nil {
		t.Fatal(err)
	}
	orig, _ := rt.Store().Messages(context.Background(), a.SessionID())
	copied, _ := rt.Store().Messages(context.Background(), f.SessionID())
	if len(orig) != 2 || len(copied) != 4 {
		t.Fatalf("original %d messages, fork %d", len(orig), len(copied))
	}
	s, _ := rt.Store().Get(context.Background(), f.SessionID())
	if s.ParentID != a.SessionID() {
		t.Fatalf("fork's parent = %q", s.ParentID)
	}
}

func TestRuntimeCloseClosesItsConversations(t *testing.T) {
	srv := llmtest.NewServer(t)
	rt, err := app.New(context.Background(), newConfig(t, srv.URL()), app.Options{Workdir: t.TempDir(), Getenv: func(string) string { return "" }})
	if err != nil {
		t.Fatal(err)
	}
	c, err := rt.Open(context.Background(), app.ConversationOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if st := rt.Stats(); st.OpenConversations != 1 || st.Running != 0 {
		t.Fatalf("stats with one idle conversation: %+v", st)
	}
	if err := rt.Close(); err != nil {
		t.Fatal(err)
	}
	if st := rt.Stats(); st.OpenConversations != 0 {
		t.Fatalf("stats after Close: %+v", st)
	}
	if _, err := c.Chat(context.Background(), "hi"); !errors.Is(err, app.ErrConversationClosed) {
		t.Fatalf("a conversation outlived its runtime: %v", err)
	}
	if _, err := rt.Open(context.Background(), app.ConversationOptions{}); err == nil {
		t.Fatal("a closed runtime opened a conversation")
	}
}

func TestWaitReturnsWhenTheTurnEnds(t *testing.T) {
	srv := llmtest.NewServer(t)
	release := make(chan struct{})
	srv.Enqueue(llmtest.Reply{Text: "slow", Delay: time.Hour})
	rt := newRuntime(t, newConfig(t, srv.URL()), app.Options{})
	c := open(t, rt, app.ConversationOptions{})
	started := make(chan struct{})
	c.Observe(func(e agent.Event) {
		if e.Kind == agent.EventStep {
			select {
			case <-started:
			default:
				close(started)
			}
		}
	})
	done := make(chan *agent.Result, 1)
	go func() {
		res, _ := c.Run(context.Background(), agent.Input{Message: "hi"})
		done <- res
		close(release)
	}()
	<-started
	if !c.Busy() || rt.Stats().Running != 1 {
		t.Fatalf("not busy during a turn: %+v", rt.Stats())
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := c.Wait(ctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("Wait with a turn running and ctx done: %v", err)
	}
	if _, err := c.Run(context.Background(), agent.Input{Message: "second"}); !errors.Is(err, agent.ErrBusy) {
		t.Fatalf("a second turn at once: %v", err)
	}
	c.Interrupt()
	if err := c.Wait(context.Background()); err != nil {
		t.Fatal(err)
	}
	<-release
	if res := <-done; res == nil || !res.Interrupted {
		t.Fatalf("turn result: %+v", res)
	}
	if c.Busy() {
		t.Fatal("busy after the turn")
	}
}

// An "always" given in one conversation allows that kind of command at
// once in every other conversation of the runtime, including their
// subagents, and is saved to config.yaml.
func TestAlwaysInOneConversationAppliesToEveryOtherAndToSubagents(t *testing.T) {
	srv := llmtest.NewServer(t)
	cfg := newConfig(t, srv.URL())
	rt := newRuntime(t, cfg, app.Options{})
	rm := func(id string) llmtest.Reply {
		return llmtest.Reply{ToolCalls: []llm.ToolCall{{ID: id, Name: "terminal", Arguments: `{"command":"rm -rf ./build"}`}}}
	}
	var asked []string
	ask := func(_ context.Context, p approval.Prompt) (approval.Choice, error) {
		asked = append(asked, p.Command)
		return approval.Always, nil
	}
	srv.Enqueue(rm("a1"), llmtest.Reply{Text: "done"})
	a := open(t, rt, app.ConversationOptions{Approve: ask})
	if _, err := a.Chat(context.Background(), "clean"); err != nil {
		t.Fatal(err)
	}
	if len(asked) != 1 {
		t.Fatalf("asked %v", asked)
	}
	// b has nobody to ask: without the shared allowlist it would be denied.
	srv.Enqueue(rm("b1"), llmtest.Reply{Text: "done"})
	b := open(t, rt, app.ConversationOptions{})
	if _, err := b.Chat(context.Background(), "clean"); err != nil {
		t.Fatal(err)
	}
	if got := toolResults(srv.Requests()[3])["b1"]; strings.Contains(got, "DENIED") {
		t.Fatalf("another conversation was denied what was allowed always: %s", got)
	}
	srv.Enqueue(
		llmtest.Reply{ToolCalls: []llm.ToolCall{{ID: "d1", Name: "delegate_task", Arguments: `{"goal":"clean the build"}`}}},
		rm("c1"), llmtest.Reply{Text: "child done"},
		llmtest.Reply{Text: "parent done"},
	)
	if _, err := b.Chat(context.Background(), "delegate it"); err != nil {
		t.Fatal(err)
	}
	child := srv.Requests()[len(srv.Requests())-2]
	if got := toolResults(child)["c1"]; got == "" || strings.Contains(got, "DENIED") || strings.Contains(got, "denied") {
		t.Fatalf("a subagent was refused what was allowed always: %q", got)
	}
	if len(asked) != 1 {
		t.Fatalf("asked again: %v", asked)
	}
	data, err := os.ReadFile(filepath.Join(cfg.Home, "config.yaml"))
	if err != nil || !strings.Contains(string(data), "recursive_delete") {
		t.Fatalf("config.yaml: %s %v", data, err)
	}
}

// A conversation owns its model: after SwitchModel its model calls, its
// system prompt and what it reports all use the new one; other
// conversations and the runtime keep theirs.
func TestSwitchModelChangesThatConversationOnly(t *testing.T) {
	srv := llmtest.NewServer(t)
	rt := newRuntime(t, newConfig(t, srv.URL()), app.Options{})
	a := open(t, rt, app.ConversationOptions{})
	b := open(t, rt, app.ConversationOptions{})
	if _, err := a.SwitchModel(context.Background(), "other-model"); err != nil {
		t.Fatal(err)
	}
	srv.Enqueue(llmtest.Reply{Text: "a"}, llmtest.Reply{Text: "b"}, llmtest.Reply{Text: "direct"})
	if _, err := a.Chat(context.Background(), "hi"); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Chat(context.Background(), "hi"); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Complete(context.Background(), &llm.Request{Messages: []llm.Message{llm.User("x")}}, nil); err != nil {
		t.Fatal(err)
	}
	reqs := srv.Requests()
	if reqs[0].Model != "other-model" || reqs[1].Model != "primary-model" || reqs[2].Model != "other-model" {
		t.Fatalf("models called: %s, %s, %s", reqs[0].Model, reqs[1].Model, reqs[2].Model)
	}
	sys, err := a.SystemPrompt(context.Background())
	if err != nil || !strings.Contains(sys, "other-model") {
		t.Fatalf("system prompt of the switched conversation names the old model: %v\n%s", err, sys)
	}
	if m, _ := a.Model(); m != "other-model" {
		t.Fatalf("Model() = %s", m)
	}
	if rt.Endpoint().Model != "primary-model" || b.Endpoint().Model != "primary-model" {
		t.Fatalf("runtime %s, other conversation %s", rt.Endpoint().Model, b.Endpoint().Model)
	}
}

// A context limit an overflow reveals is recorded under the endpoint that
// answered, not the primary's.
func TestLearnedContextLimitsAreKeptByTheEndpointThatAnswered(t *testing.T) {
	primary, fallback := llmtest.NewServer(t), llmtest.NewServer(t)
	cfg := newConfig(t, primary.URL())
	none := 0
	cfg.Agent.APIMaxRetries = &none
	cfg.FallbackProviders = []config.FallbackProvider{{Provider: "custom", Model: "fallback-model", BaseURL: fallback.URL()}}
	rt := newRuntime(t, cfg, app.Options{})
	primary.Enqueue(llmtest.Reply{Status: 503})
	overflow := `{"error":{"message":"This model's maximum context length is 8192 tokens. However, your messages resulted in 9000 tokens.","type":"invalid_request_error","code":"context_length_exceeded"}}`
	for range 4 {
		fallback.Enqueue(llmtest.Reply{Status: 400, Body: overflow})
	}
	c := open(t, rt, app.ConversationOptions{})
	c.Run(context.Background(), agent.Input{Message: "hi"})
	data, err := os.ReadFile(filepath.Join(cfg.Home, "context_lengths.json"))
	if err != nil {
		t.Fatal(err)
	}
	var file struct {
		Limits map[string]int `json:"limits"`
	}
	if err := json.Unmarshal(data, &file); err != nil {
		t.Fatalf("%v: %s", err, data)
	}
	learned := file.Limits
	if learned["fallback-model@"+fallback.URL()] != 8192 {
		t.Fatalf("learned %v, want fallback-model@%s: 8192", learned, fallback.URL())
	}
	for k := range learned {
		if strings.Contains(k, primary.URL()) {
			t.Fatalf("a limit of the fallback was recorded under the primary: %v", learned)
		}
	}
}

// A title the user gives while the generated one is on its way stays.
func TestAGeneratedTitleNeverReplacesTheUsers(t *testing.T) {
	srv, titles := llmtest.NewServer(t), llmtest.NewServer(t)
	release := make(chan struct{})
	titles.Handle(func(*llmtest.Request) llmtest.Reply {
		<-release
		return llmtest.Reply{Text: "Generated title"}
	})
	cfg := newConfig(t, srv.URL())
	cfg.Auxiliary = map[string]config.Auxiliary{"title_generation": {Provider: "custom", BaseURL: titles.URL(), Model: "t"}}
	rt := newRuntime(t, cfg, app.Options{})
	c := open(t, rt, app.ConversationOptions{})
	srv.Enqueue(llmtest.Reply{Text: "answer"})
	res, err := c.Run(context.Background(), agent.Input{Message: "hello"})
	if err != nil {
		t.Fatal(err)
	}
	c.TitleSession(context.Background(), res, "hello")
	if err := c.SetTitle(context.Background(), "Mine"); err != nil {
		t.Fatal(err)
	}
	close(release)
	rt.Close() // waits for the title being written
	st, err := session.Open(filepath.Join(cfg.Home, "state.db"), session.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	s, err := st.Get(context.Background(), res.SessionID)
	if err != nil || s.Title != "Mine" {
		t.Fatalf("title %q (%v), want the user's", s.Title, err)
	}
	if len(titles.Requests()) != 1 {
		t.Fatalf("title model called %d times", len(titles.Requests()))
	}
}

// Retry drops the last exchange, here and in the store, and sends its
// user message again.
func TestRetrySendsTheLastMessageAgain(t *testing.T) {
	srv := llmtest.NewServer(t)
	srv.Enqueue(llmtest.Reply{Text: "first"}, llmtest.Reply{Text: "second"})
	rt := newRuntime(t, newConfig(t, srv.URL()), app.Options{})
	c := open(t, rt, app.ConversationOptions{})
	if _, err := c.Chat(context.Background(), "hi"); err != nil {
		t.Fatal(err)
	}
	res, err := c.Retry(context.Background())
	if err != nil || res.FinalResponse != "second" {
		t.Fatalf("retry: %+v %v", res, err)
	}
	if u := srv.Requests()[1].Messages(); u[len(u)-1].Content != "hi" {
		t.Fatalf("the retried request ends with %+v", u[len(u)-1])
	}
	stored, _ := rt.Store().Messages(context.Background(), c.SessionID())
	if h := c.History(); len(h) != 2 || h[1].Content != "second" || len(stored) != 2 || stored[1].Content != "second" {
		t.Fatalf("history %+v, stored %+v", h, stored)
	}
}

// A compression counts as a turn: the conversation is busy while it runs,
// a turn started meanwhile is refused, and Wait returns when it ends.
func TestACompressionCountsAsATurn(t *testing.T) {
	srv := llmtest.NewServer(t)
	release, summarizing := make(chan struct{}), make(chan struct{})
	var releaseOnce sync.Once
	letGo := func() { releaseOnce.Do(func() { close(release) }) }
	var calls atomic.Int32
	srv.Handle(func(*llmtest.Request) llmtest.Reply {
		if calls.Add(1) <= 2 {
			return llmtest.Reply{Text: strings.Repeat("lorem ipsum ", 50)}
		}
		close(summarizing)
		<-release
		return llmtest.Reply{Text: "## Summary\nFiller."}
	})
	cfg := newConfig(t, srv.URL())
	cfg.Compression.ProtectFirstN, cfg.Compression.ProtectLastN = 1, 1
	rt := newRuntime(t, cfg, app.Options{})
	c := open(t, rt, app.ConversationOptions{})
	t.Cleanup(letGo) // runs first: a failing test does not leave the summary waiting
	for _, m := range []string{"one", "two"} {
		if _, err := c.Chat(context.Background(), m); err != nil {
			t.Fatal(err)
		}
	}
	done := make(chan error, 1)
	go func() { done <- c.Compress(context.Background(), "") }()
	<-summarizing
	if !c.Busy() {
		t.Fatal("not busy while compressing")
	}
	if _, err := c.Run(context.Background(), agent.Input{Message: "three"}); !errors.Is(err, agent.ErrBusy) {
		t.Fatalf("a turn during a compression: %v", err)
	}
	gone, cancel := context.WithCancel(context.Background())
	cancel()
	if err := c.Wait(gone); !errors.Is(err, context.Canceled) {
		t.Fatalf("Wait during a compression returned %v, want it to wait (and give up with its context)", err)
	}
	letGo()
	if err := c.Wait(context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if c.Busy() {
		t.Fatal("busy after the compression")
	}
}
