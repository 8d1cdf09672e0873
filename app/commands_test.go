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

func TestNewSessionEndsTheOldOneAndStartsEmpty(t *testing.T) {
	srv := llmtest.NewServer(t)
	srv.Enqueue(llmtest.Reply{Text: "one"}, llmtest.Reply{Text: "two"})
	rt := newRuntime(t, newConfig(t, srv.URL()), app.Options{Source: "cli"})
	ctx := context.Background()
	first := rt.Agent().SessionID()
	rt.Agent().Chat(ctx, "in the first session")
	id, err := rt.NewSession(ctx)
	if err != nil || id == first || rt.Agent().SessionID() != id {
		t.Fatalf("new session %q (was %q) err %v", id, first, err)
	}
	rt.Agent().Chat(ctx, "in the second session")
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

func TestResumeSessionSwitchesToTheStoredHistory(t *testing.T) {
	srv := llmtest.NewServer(t)
	srv.Enqueue(llmtest.Reply{Text: "first answer"}, llmtest.Reply{Text: "b"}, llmtest.Reply{Text: "back"})
	rt := newRuntime(t, newConfig(t, srv.URL()), app.Options{})
	ctx := context.Background()
	first := rt.Agent().SessionID()
	rt.Agent().Chat(ctx, "remember 42")
	if err := rt.SetTitle(ctx, "numbers"); err != nil {
		t.Fatal(err)
	}
	rt.NewSession(ctx)
	rt.Agent().Chat(ctx, "unrelated")
	second := rt.Agent().SessionID()
	if _, err := rt.ResumeSession(ctx, second); err == nil {
		t.Fatal("resuming the current session was accepted")
	}
	s, err := rt.ResumeSession(ctx, "numbers")
	if err != nil || s.ID != first || rt.Agent().SessionID() != first {
		t.Fatalf("resumed %+v err %v", s, err)
	}
	rt.Agent().Chat(ctx, "which number?")
	sent := srv.Requests()[2].Messages()
	if len(sent) != 4 || sent[1].Content != "remember 42" || sent[2].Content != "first answer" {
		t.Fatalf("resumed call carried %+v", sent)
	}
	if got, _ := rt.Store().Get(ctx, second); got.EndReason != "resumed_other" {
		t.Fatalf("left session %+v", got)
	}
	if _, err := rt.ResumeSession(ctx, "no such session"); !errors.Is(err, session.ErrNotFound) {
		t.Fatalf("unknown session: %v", err)
	}
}

func TestSetTitleStoresASessionNotSentYet(t *testing.T) {
	rt := newRuntime(t, newConfig(t, "http://127.0.0.1:1/v1"), app.Options{})
	ctx := context.Background()
	if _, err := rt.CurrentSession(ctx); !errors.Is(err, session.ErrNotFound) {
		t.Fatalf("a fresh session is stored already: %v", err)
	}
	if err := rt.SetTitle(ctx, "  my   plan "); err != nil {
		t.Fatal(err)
	}
	s, err := rt.CurrentSession(ctx)
	if err != nil || s.Title != "my plan" || s.Model != "primary-model" {
		t.Fatalf("session %+v err %v", s, err)
	}
	if err := rt.SetTitle(ctx, ""); err == nil {
		t.Fatal("an empty title was accepted")
	}
}

func TestUndoTurnDropsTheExchangeFromHistoryAndStore(t *testing.T) {
	srv := llmtest.NewServer(t)
	srv.Enqueue(llmtest.Reply{Text: "one"}, llmtest.Reply{Text: "two"}, llmtest.Reply{Text: "three"})
	rt := newRuntime(t, newConfig(t, srv.URL()), app.Options{})
	ctx := context.Background()
	rt.Agent().Chat(ctx, "first")
	rt.Agent().Chat(ctx, "second")
	dropped, err := rt.UndoTurn(ctx)
	if err != nil || len(dropped) != 2 || dropped[0].Content != "second" {
		t.Fatalf("dropped %+v err %v", dropped, err)
	}
	msgs, _ := rt.Store().Messages(ctx, rt.Agent().SessionID())
	if len(msgs) != 2 || msgs[1].Content != "one" {
		t.Fatalf("stored %+v", msgs)
	}
	rt.Agent().Chat(ctx, "again")
	if sent := srv.Requests()[2].Messages(); len(sent) != 4 || sent[3].Content != "again" {
		t.Fatalf("call after undo %+v", sent)
	}
}

func TestSwitchModelAppliesToTheNextCall(t *testing.T) {
	srv := llmtest.NewServer(t)
	srv.Enqueue(llmtest.Reply{Text: "one"}, llmtest.Reply{Text: "two"})
	rt := newRuntime(t, newConfig(t, srv.URL()), app.Options{})
	ctx := context.Background()
	rt.Agent().Chat(ctx, "first")
	ep, err := rt.SwitchModel(ctx, "custom:other-model")
	if err != nil || ep.Model != "other-model" || ep.Provider != "custom" || ep.APIKey != "" {
		t.Fatalf("endpoint %+v err %v", ep, err)
	}
	if rt.Endpoint().Model != "other-model" {
		t.Fatalf("Endpoint %+v", rt.Endpoint())
	}
	res, _ := rt.Agent().Run(ctx, agent.Input{Message: "second"})
	reqs := srv.Requests()
	if reqs[0].Model != "primary-model" || reqs[1].Model != "other-model" || res.Model != "other-model" {
		t.Fatalf("models sent %q then %q, result %q", reqs[0].Model, reqs[1].Model, res.Model)
	}
	if !strings.Contains(reqs[1].System(), "other-model") {
		t.Fatalf("the system prompt still names the old model: %q", reqs[1].System())
	}
	if s, _ := rt.Store().Get(ctx, rt.Agent().SessionID()); s.Model != "other-model" {
		t.Fatalf("stored model %q", s.Model)
	}
	// A model name with a colon that names no provider is a model name.
	if ep, err := rt.SwitchModel(ctx, "llama3:8b"); err != nil || ep.Model != "llama3:8b" || ep.Provider != "custom" {
		t.Fatalf("endpoint %+v err %v", ep, err)
	}
	if _, err := rt.SwitchModel(ctx, " "); err == nil {
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
	rt := newRuntime(t, cfg, app.Options{Workdir: work, Yolo: true})
	ctx := context.Background()
	before := rt.Context()
	if part(before, "context files") < 300 || part(before, "tool schemas") == 0 || part(before, "system prompt") == 0 || part(before, "conversation") != 0 {
		t.Fatalf("before the first turn: %+v", before)
	}
	rt.Agent().Chat(ctx, "run it")
	after := rt.Context()
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
	u, err := rt.Usage(ctx)
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
	rt := newRuntime(t, cfg, app.Options{Workdir: work}) // nobody to ask: dangerous commands are denied
	ctx := context.Background()
	out, err := rt.RunShell(ctx, "echo hello-from-the-shell")
	if err != nil || out.Result.IsError || !strings.Contains(out.Result.Content, "hello-from-the-shell") {
		t.Fatalf("outcome %+v err %v", out, err)
	}
	victim := filepath.Join(work, "keep.txt")
	os.WriteFile(victim, []byte("x"), 0o644)
	out, _ = rt.RunShell(ctx, "rm -rf "+work)
	if !out.Result.IsError || !strings.Contains(out.Result.Content, "DENIED") {
		t.Fatalf("a dangerous command ran: %+v", out)
	}
	if _, err := os.Stat(victim); err != nil {
		t.Fatalf("victim gone: %v", err)
	}
	if len(rt.Agent().History()) != 0 {
		t.Fatalf("the shell escape entered the history: %+v", rt.Agent().History())
	}
	rt.SetYolo(true)
	if !rt.Yolo() {
		t.Fatal("yolo not on")
	}
}
