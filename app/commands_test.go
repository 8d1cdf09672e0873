package app_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hermes-go/hermes/agent"
	"github.com/hermes-go/hermes/app"
	"github.com/hermes-go/hermes/llm"
	"github.com/hermes-go/hermes/llm/llmtest"
	"github.com/hermes-go/hermes/session"
)

// /new is a Close and an Open: the old session is ended and let go of,
// the new conversation starts empty in a session of its own.
func TestNewSessionEndsTheOldOneAndStartsEmpty(t *testing.T) {
	srv := llmtest.NewServer(t)
	srv.Enqueue(llmtest.Reply{Text: "one"}, llmtest.Reply{Text: "two"})
	rt := newRuntime(t, newConfig(t, srv.URL()), app.Options{Source: "cli"})
	ctx := context.Background()
	c := open(t, rt, app.ConversationOptions{})
	first := c.SessionID()
	c.Chat(ctx, "in the first session")
	if err := c.End("new_session"); err != nil {
		t.Fatal(err)
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	next := open(t, rt, app.ConversationOptions{})
	id := next.SessionID()
	if id == "" || id == first {
		t.Fatalf("new session %q (was %q)", id, first)
	}
	next.Chat(ctx, "in the second session")
	if sent := srv.Requests()[1].Messages(); len(sent) != 2 || sent[1].Content != "in the second session" {
		t.Fatalf("the new session's call carried %+v", sent)
	}
	old, _ := rt.Store().Get(ctx, first)
	cur, _ := rt.Store().Get(ctx, id)
	if old.EndReason != "new_session" || old.MessageCount != 2 || cur.MessageCount != 2 || cur.Source != "cli" {
		t.Fatalf("old %+v new %+v", old, cur)
	}
	// The old session is let go of: another process may resume it.
	release, err := rt.Store().Acquire(ctx, first)
	if err != nil {
		t.Fatalf("the old session is still held: %v", err)
	}
	release()
}

// /resume is a Close and an Open of the stored session: its history goes
// with the next call; the session being written cannot be opened twice,
// and an unknown one is not found.
func TestResumeSessionSwitchesToTheStoredHistory(t *testing.T) {
	srv := llmtest.NewServer(t)
	srv.Enqueue(llmtest.Reply{Text: "first answer"}, llmtest.Reply{Text: "b"}, llmtest.Reply{Text: "back"})
	rt := newRuntime(t, newConfig(t, srv.URL()), app.Options{})
	ctx := context.Background()
	c := open(t, rt, app.ConversationOptions{})
	first := c.SessionID()
	c.Chat(ctx, "remember 42")
	if err := c.SetTitle(ctx, "numbers"); err != nil {
		t.Fatal(err)
	}
	c.End("new_session")
	c.Close()
	c = open(t, rt, app.ConversationOptions{})
	c.Chat(ctx, "unrelated")
	second := c.SessionID()
	if dup, err := rt.Open(ctx, app.ConversationOptions{Resume: second}); err == nil || !errors.Is(err, session.ErrBusy) {
		if dup != nil {
			dup.Close()
		}
		t.Fatalf("resuming the current session: err = %v", err)
	}
	if err := c.End("resumed_other"); err != nil {
		t.Fatal(err)
	}
	c.Close()
	c = open(t, rt, app.ConversationOptions{Resume: "numbers"})
	s, err := c.Stored(ctx)
	if err != nil || s.ID != first || c.SessionID() != first {
		t.Fatalf("resumed %+v err %v", s, err)
	}
	c.Chat(ctx, "which number?")
	sent := srv.Requests()[2].Messages()
	if len(sent) != 4 || sent[1].Content != "remember 42" || sent[2].Content != "first answer" {
		t.Fatalf("resumed call carried %+v", sent)
	}
	if got, _ := rt.Store().Get(ctx, second); got.EndReason != "resumed_other" {
		t.Fatalf("left session %+v", got)
	}
	if _, err := rt.Open(ctx, app.ConversationOptions{Resume: "no such session"}); !errors.Is(err, session.ErrNotFound) {
		t.Fatalf("unknown session: %v", err)
	}
}

func TestSetTitleStoresASessionNotSentYet(t *testing.T) {
	rt := newRuntime(t, newConfig(t, "http://127.0.0.1:1/v1"), app.Options{})
	c := open(t, rt, app.ConversationOptions{})
	ctx := context.Background()
	if _, err := c.Stored(ctx); !errors.Is(err, session.ErrNotFound) {
		t.Fatalf("a fresh session is stored already: %v", err)
	}
	if err := c.SetTitle(ctx, "  my   plan "); err != nil {
		t.Fatal(err)
	}
	s, err := c.Stored(ctx)
	if err != nil || s.Title != "my plan" || s.Model != "primary-model" {
		t.Fatalf("session %+v err %v", s, err)
	}
	if err := c.SetTitle(ctx, ""); err == nil {
		t.Fatal("an empty title was accepted")
	}
}

func TestUndoTurnDropsTheExchangeFromHistoryAndStore(t *testing.T) {
	srv := llmtest.NewServer(t)
	srv.Enqueue(llmtest.Reply{Text: "one"}, llmtest.Reply{Text: "two"}, llmtest.Reply{Text: "three"})
	rt := newRuntime(t, newConfig(t, srv.URL()), app.Options{})
	c := open(t, rt, app.ConversationOptions{})
	ctx := context.Background()
	c.Chat(ctx, "first")
	c.Chat(ctx, "second")
	dropped, err := c.Undo(ctx)
	if err != nil || len(dropped) != 2 || dropped[0].Content != "second" {
		t.Fatalf("dropped %+v err %v", dropped, err)
	}
	msgs, _ := rt.Store().Messages(ctx, c.SessionID())
	if len(msgs) != 2 || msgs[1].Content != "one" {
		t.Fatalf("stored %+v", msgs)
	}
	c.Chat(ctx, "again")
	if sent := srv.Requests()[2].Messages(); len(sent) != 4 || sent[3].Content != "again" {
		t.Fatalf("call after undo %+v", sent)
	}
}

func TestSwitchModelAppliesToTheNextCall(t *testing.T) {
	srv := llmtest.NewServer(t)
	srv.Enqueue(llmtest.Reply{Text: "one"}, llmtest.Reply{Text: "two"})
	rt := newRuntime(t, newConfig(t, srv.URL()), app.Options{})
	c := open(t, rt, app.ConversationOptions{})
	ctx := context.Background()
	c.Chat(ctx, "first")
	ep, err := c.SwitchModel(ctx, "custom:other-model")
	if err != nil || ep.Model != "other-model" || ep.Provider != "custom" || ep.APIKey != "" {
		t.Fatalf("endpoint %+v err %v", ep, err)
	}
	if c.Endpoint().Model != "other-model" {
		t.Fatalf("Endpoint %+v", c.Endpoint())
	}
	if rt.Endpoint().Model != "primary-model" {
		t.Fatalf("the switch moved the runtime's endpoint: %+v", rt.Endpoint())
	}
	res, _ := c.Run(ctx, agent.Input{Message: "second"})
	reqs := srv.Requests()
	if reqs[0].Model != "primary-model" || reqs[1].Model != "other-model" || res.Model != "other-model" {
		t.Fatalf("models sent %q then %q, result %q", reqs[0].Model, reqs[1].Model, res.Model)
	}
	if !strings.Contains(reqs[1].System(), "other-model") {
		t.Fatalf("the system prompt still names the old model: %q", reqs[1].System())
	}
	if s, _ := rt.Store().Get(ctx, c.SessionID()); s.Model != "other-model" {
		t.Fatalf("stored model %q", s.Model)
	}
	// A model name with a colon that names no provider is a model name.
	if ep, err := c.SwitchModel(ctx, "llama3:8b"); err != nil || ep.Model != "llama3:8b" || ep.Provider != "custom" {
		t.Fatalf("endpoint %+v err %v", ep, err)
	}
	if _, err := c.SwitchModel(ctx, " "); err == nil {
		t.Fatal("an empty model was accepted")
	}
}

func TestContextBreakdownCountsEachCategory(t *testing.T) {
	srv := llmtest.NewServer(t)
	srv.Enqueue(
		llmtest.Reply{ToolCalls: []llm.ToolCall{{ID: "c1", Name: "terminal", Arguments: `{"command":"echo ` + strings.Repeat("x", 400) + `"}`}}},
		llmtest.Reply{Text: "done"})
	cfg := newConfig(t, srv.URL())
	work := t.TempDir()
	os.WriteFile(filepath.Join(work, "AGENTS.md"), []byte(strings.Repeat("Always test. ", 100)), 0o644)
	rt := newRuntime(t, cfg, app.Options{Workdir: work})
	c := open(t, rt, app.ConversationOptions{Yolo: true})
	ctx := context.Background()
	before := c.Context()
	if part(before, "context files") < 300 || part(before, "tool schemas") == 0 || part(before, "system prompt") == 0 || part(before, "conversation") != 0 {
		t.Fatalf("before the first turn: %+v", before)
	}
	c.Chat(ctx, "run it")
	after := c.Context()
	if part(after, "tool results") < 100 || part(after, "conversation") < 100 || after.Window == 0 || after.Percent() <= 0 {
		t.Fatalf("after a turn: %+v", after)
	}
	sum := 0
	for _, p := range after.Parts {
		sum += p.Tokens
	}
	if sum != after.Tokens {
		t.Fatalf("parts %d, total %d", sum, after.Tokens)
	}
	u, err := c.Usage(ctx)
	if err != nil || u.Session.APICalls != 2 || u.Session.Usage.InputTokens == 0 || u.Model != "primary-model" {
		t.Fatalf("usage %+v err %v", u, err)
	}
}

func part(c app.ContextUsage, name string) int {
	for _, p := range c.Parts {
		if p.Name == name {
			return p.Tokens
		}
	}
	return -1
}

func TestRunShellGoesThroughApprovalsAndTheSandbox(t *testing.T) {
	cfg := newConfig(t, "http://127.0.0.1:1/v1")
	work := t.TempDir()
	rt := newRuntime(t, cfg, app.Options{Workdir: work})
	c := open(t, rt, app.ConversationOptions{}) // nobody to ask: dangerous commands are denied
	ctx := context.Background()
	out, err := c.RunShell(ctx, "echo hello-from-the-shell")
	if err != nil || out.Result.IsError || !strings.Contains(out.Result.Content, "hello-from-the-shell") {
		t.Fatalf("outcome %+v err %v", out, err)
	}
	victim := filepath.Join(work, "keep.txt")
	os.WriteFile(victim, []byte("x"), 0o644)
	out, _ = c.RunShell(ctx, "rm -rf "+work)
	if !out.Result.IsError || !strings.Contains(out.Result.Content, "DENIED") {
		t.Fatalf("a dangerous command ran: %+v", out)
	}
	if _, err := os.Stat(victim); err != nil {
		t.Fatalf("victim gone: %v", err)
	}
	if len(c.History()) != 0 {
		t.Fatalf("the shell escape entered the history: %+v", c.History())
	}
	c.SetYolo(true)
	if !c.Yolo() {
		t.Fatal("yolo not on")
	}
}
