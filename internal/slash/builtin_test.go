package slash

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hermes-go/hermes/app"
	"github.com/hermes-go/hermes/config"
	"github.com/hermes-go/hermes/llm"
	"github.com/hermes-go/hermes/llm/llmtest"
)

// chat is a runtime against a scripted provider and a host around it.
func chat(t *testing.T, srv *llmtest.Server, work string) (*Registry, *fakeHost) {
	t.Helper()
	cfg := config.Default()
	cfg.Home = t.TempDir()
	cfg.Provider, cfg.BaseURL, cfg.APIKey, cfg.Model.Name = "custom", srv.URL(), "sk-test", "first-model"
	if work == "" {
		work = t.TempDir()
	}
	rt, err := app.New(context.Background(), cfg, app.Options{Source: "cli", Workdir: work, Getenv: func(string) string { return "" }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rt.Close() })
	c, err := rt.Open(context.Background(), app.ConversationOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return Builtin(), &fakeHost{rt: rt, conv: c}
}

func run(t *testing.T, r *Registry, h *fakeHost, line string) error {
	t.Helper()
	handled, err := r.Dispatch(context.Background(), h, line)
	if !handled {
		t.Fatalf("%q was not taken for a command", line)
	}
	return err
}

func TestHelpListsEveryCommandAndCallsNoModel(t *testing.T) {
	srv := llmtest.NewServer(t)
	r, h := chat(t, srv, "")
	if err := run(t, r, h, "/help"); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"/help", "/new", "/resume [id|title]", "/sessions", "/title", "/stop", "/retry", "/undo",
		"/model [provider:]name", "/compress [focus]", "/usage", "/context", "/tools", "/yolo", "/rollback [N]", "/clear", "/exit", "/quit"} {
		if !strings.Contains(h.out(), name) {
			t.Errorf("/help lacks %s:\n%s", name, h.out())
		}
	}
	if err := run(t, r, h, "/help mod"); err != nil || !strings.Contains(h.printed[1], "/model [provider:]name") {
		t.Fatalf("/help mod: %v %q", err, h.printed)
	}
	if n := len(srv.Requests()); n != 0 {
		t.Fatalf("/help sent %d requests", n)
	}
}

func TestNewTitleSessionsResume(t *testing.T) {
	srv := llmtest.NewServer(t)
	srv.AllowUnexpected() // title generation
	srv.Handle(func(r *llmtest.Request) llmtest.Reply {
		return llmtest.Reply{Text: "answer to " + r.Messages()[len(r.Messages())-1].Content}
	})
	r, h := chat(t, srv, "")
	ctx := context.Background()
	first := h.Conversation().SessionID()
	h.Conversation().Chat(ctx, "remember the word kumquat")
	if err := run(t, r, h, "/title fruit talk"); err != nil {
		t.Fatal(err)
	}
	if err := run(t, r, h, "/new"); err != nil || h.Conversation().SessionID() == first || !strings.Contains(h.out(), "/resume "+first) {
		t.Fatalf("/new: %v %s", err, h.out())
	}
	h.Conversation().Chat(ctx, "something else")
	if err := run(t, r, h, "/sessions"); err != nil || !strings.Contains(h.out(), "fruit talk") || !strings.Contains(h.out(), "* "+h.Conversation().SessionID()) {
		t.Fatalf("/sessions: %v\n%s", err, h.out())
	}
	if err := run(t, r, h, "/resume fruit talk"); err != nil || h.Conversation().SessionID() != first {
		t.Fatalf("/resume: %v %s", err, h.out())
	}
	if len(h.resets) != 1 || len(h.resets[0]) != 2 || h.resets[0][0].Content != "remember the word kumquat" {
		t.Fatalf("the resumed conversation was not shown: %+v", h.resets)
	}
	if err := run(t, r, h, "/title"); err != nil || !strings.Contains(h.printed[len(h.printed)-1], `"fruit talk"`) {
		t.Fatalf("/title: %v %q", err, h.printed)
	}
	if err := run(t, r, h, "/resume nothing-like-this"); err == nil {
		t.Fatal("resuming an unknown session succeeded")
	}
}

func TestNewAndResumeCloseTheConversationTheyLeaveAndKeepModelAndYolo(t *testing.T) {
	srv := llmtest.NewServer(t)
	srv.AllowUnexpected() // title generation
	srv.Handle(func(*llmtest.Request) llmtest.Reply { return llmtest.Reply{Text: "ok"} })
	r, h := chat(t, srv, "")
	ctx := context.Background()
	first := h.Conversation()
	if _, err := first.Chat(ctx, "hello"); err != nil {
		t.Fatal(err)
	}
	if err := run(t, r, h, "/model second-model"); err != nil {
		t.Fatal(err)
	}
	run(t, r, h, "/yolo on")
	if err := run(t, r, h, "/new"); err != nil {
		t.Fatal(err)
	}
	second := h.Conversation()
	if second == first || second.SessionID() == first.SessionID() {
		t.Fatal("/new kept the conversation")
	}
	if _, err := first.Chat(ctx, "still there?"); !errors.Is(err, app.ErrConversationClosed) {
		t.Fatalf("the conversation /new left is not closed: %v", err)
	}
	if s, err := h.rt.Store().Get(ctx, first.SessionID()); err != nil || s.EndReason != "new_session" {
		t.Fatalf("the session /new left: %+v %v", s, err)
	}
	if !second.Yolo() {
		t.Fatal("/new turned yolo off")
	}
	if _, err := second.Chat(ctx, "which model?"); err != nil {
		t.Fatal(err)
	}
	if got := srv.Requests()[len(srv.Requests())-1].Model; got != "second-model" {
		t.Fatalf("after /new the request went to %q, not the model /model chose", got)
	}

	// A session that cannot be resumed leaves the current conversation
	// open; the current session cannot be resumed over itself.
	opened := h.opened
	for _, ref := range []string{"nothing-like-this", second.SessionID()} {
		if err := run(t, r, h, "/resume "+ref); err == nil {
			t.Fatalf("/resume %s succeeded", ref)
		}
	}
	if h.Conversation() != second || h.opened != opened {
		t.Fatal("a failed /resume replaced the conversation")
	}
	if _, err := second.Chat(ctx, "still here"); err != nil {
		t.Fatalf("the conversation a failed /resume kept: %v", err)
	}

	if err := run(t, r, h, "/resume "+first.SessionID()); err != nil || h.Conversation().SessionID() != first.SessionID() {
		t.Fatalf("/resume: %v %s", err, h.out())
	}
	if s, err := h.rt.Store().Get(ctx, second.SessionID()); err != nil || s.EndReason != "resumed_other" {
		t.Fatalf("the session /resume left: %+v %v", s, err)
	}
	// Closed, it no longer holds its session: another conversation may
	// resume it.
	again, err := h.rt.Open(ctx, app.ConversationOptions{Resume: second.SessionID()})
	if err != nil {
		t.Fatalf("the session /resume left is still held: %v", err)
	}
	again.Close()
}

func TestUndoAndRetryDropTheLastExchange(t *testing.T) {
	srv := llmtest.NewServer(t)
	srv.AllowUnexpected()
	n := 0
	srv.Handle(func(r *llmtest.Request) llmtest.Reply { n++; return llmtest.Reply{Text: "answer"} })
	r, h := chat(t, srv, "")
	ctx := context.Background()
	if err := run(t, r, h, "/undo"); err == nil {
		t.Fatal("undo of nothing succeeded")
	}
	h.Conversation().Chat(ctx, "one")
	h.Conversation().Chat(ctx, "two")
	if err := run(t, r, h, "/retry"); err != nil || len(h.sent) != 1 || h.sent[0] != "two" {
		t.Fatalf("/retry: %v sent %q", err, h.sent)
	}
	if len(h.Conversation().History()) != 2 {
		t.Fatalf("/retry kept the old answer: %+v", h.Conversation().History())
	}
	if err := run(t, r, h, "/undo"); err != nil || len(h.Conversation().History()) != 0 {
		t.Fatalf("/undo: %v history %+v", err, h.Conversation().History())
	}
	msgs, _ := h.rt.Store().Messages(ctx, h.Conversation().SessionID())
	if len(msgs) != 0 {
		t.Fatalf("the store keeps %+v", msgs)
	}
	h.busy = true
	if err := run(t, r, h, "/undo"); err == nil {
		t.Fatal("undo ran during a turn")
	}
}

func TestModelSwitchesTheNextRequest(t *testing.T) {
	srv := llmtest.NewServer(t)
	srv.AllowUnexpected()
	srv.Handle(func(*llmtest.Request) llmtest.Reply { return llmtest.Reply{Text: "ok"} })
	r, h := chat(t, srv, "")
	if err := run(t, r, h, "/mod second-model"); err != nil {
		t.Fatal(err)
	}
	h.Conversation().Chat(context.Background(), "hi")
	if got := srv.Requests()[0].Model; got != "second-model" {
		t.Fatalf("request went to %q", got)
	}
	if err := run(t, r, h, "/model"); err != nil || !strings.Contains(h.out(), "second-model on custom") {
		t.Fatalf("/model: %v %s", err, h.out())
	}
}

func TestUsageContextToolsYoloStop(t *testing.T) {
	srv := llmtest.NewServer(t)
	srv.AllowUnexpected()
	srv.Enqueue(llmtest.Reply{Text: "hello", Usage: &llm.Usage{InputTokens: 1234, OutputTokens: 56, TotalTokens: 1290}})
	r, h := chat(t, srv, "")
	h.Conversation().Chat(context.Background(), "hi")
	if err := run(t, r, h, "/usage"); err != nil || !strings.Contains(h.out(), "tokens in   1234") || !strings.Contains(h.out(), "tokens out  56") {
		t.Fatalf("/usage: %v\n%s", err, h.out())
	}
	if err := run(t, r, h, "/ctx"); err != nil || !strings.Contains(h.out(), "tool schemas") || !strings.Contains(h.out(), "conversation") {
		t.Fatalf("/context: %v\n%s", err, h.out())
	}
	if err := run(t, r, h, "/tools"); err != nil || !strings.Contains(h.out(), "terminal") || !strings.Contains(h.out(), "read_file") {
		t.Fatalf("/tools: %v\n%s", err, h.out())
	}
	run(t, r, h, "/yolo")
	if !h.Conversation().Yolo() || h.kinds[len(h.kinds)-1] != Warning {
		t.Fatal("/yolo did not turn it on")
	}
	run(t, r, h, "/yolo")
	if h.Conversation().Yolo() {
		t.Fatal("/yolo did not turn it off")
	}
	if err := run(t, r, h, "/yolo maybe"); err == nil {
		t.Fatal("/yolo maybe accepted")
	}
	if err := run(t, r, h, "/stop"); err != nil || h.stopped != 1 || !strings.Contains(h.out(), "Nothing is running") {
		t.Fatalf("/stop: %v %s", err, h.out())
	}
	if err := run(t, r, h, "/quit"); err != nil || !h.exited {
		t.Fatalf("/quit: %v", err)
	}
	if n := len(srv.Requests()); n != 1 {
		t.Fatalf("the commands called the model: %d requests", n)
	}
}

func TestClearStartsANewSessionOnAnEmptyScreen(t *testing.T) {
	srv := llmtest.NewServer(t)
	r, h := chat(t, srv, "")
	old := h.Conversation().SessionID()
	if err := run(t, r, h, "/clear"); err != nil || h.Conversation().SessionID() == old || len(h.resets) != 1 || h.resets[0] != nil {
		t.Fatalf("/clear: %v %+v", err, h.resets)
	}
}

func TestRollbackRestoresTheWorkspace(t *testing.T) {
	work := filepath.Join(t.TempDir(), "project")
	os.MkdirAll(filepath.Join(work, ".git"), 0o755)
	os.WriteFile(filepath.Join(work, "notes.txt"), []byte("original\n"), 0o644)
	b, _ := json.Marshal(map[string]string{"path": "notes.txt", "content": "overwritten\n"})
	srv := llmtest.NewServer(t)
	srv.AllowUnexpected()
	srv.Enqueue(llmtest.Reply{ToolCalls: []llm.ToolCall{{Name: "write_file", Arguments: string(b)}}}, llmtest.Reply{Text: "rewrote it"})
	r, h := chat(t, srv, work)
	if err := run(t, r, h, "/rollback"); err == nil {
		t.Fatal("rollback without checkpoints succeeded")
	}
	h.Conversation().Chat(context.Background(), "rewrite the notes")
	if err := run(t, r, h, "/rollback"); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(filepath.Join(work, "notes.txt")); string(got) != "original\n" || !strings.Contains(h.out(), "restored  notes.txt") {
		t.Fatalf("notes.txt %q\n%s", got, h.out())
	}
	if err := run(t, r, h, "/rollback x"); err == nil {
		t.Fatal("/rollback x accepted")
	}
}

func TestImageGoesWithTheNextMessageAndRetryKeepsIt(t *testing.T) {
	srv := llmtest.NewServer(t)
	srv.AllowUnexpected() // title generation
	srv.Handle(func(r *llmtest.Request) llmtest.Reply { return llmtest.Reply{Text: "a red square"} })
	work := t.TempDir()
	png := []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x02\x00\x00\x00\x90wS\xde")
	if err := os.WriteFile(filepath.Join(work, "shot.png"), png, 0o644); err != nil {
		t.Fatal(err)
	}
	r, h := chat(t, srv, work)
	h.rt.Config().Model.Vision = new(true)
	if err := run(t, r, h, "/image"); err == nil {
		t.Fatal("/image without a path was taken")
	}
	if err := run(t, r, h, "/image shot.png"); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(h.out(), "image/png") {
		t.Fatalf("/image did not say what it attached: %s", h.out())
	}
	ctx := context.Background()
	if _, err := h.Conversation().Chat(ctx, "what is this?"); err != nil {
		t.Fatal(err)
	}
	if err := run(t, r, h, "/retry"); err != nil {
		t.Fatal(err)
	}
	if _, err := h.Conversation().Chat(ctx, h.sent[len(h.sent)-1]); err != nil {
		t.Fatal(err)
	}
	var withImage int
	for _, req := range srv.Requests() {
		msgs := req.Messages()
		if len(msgs) == 0 || msgs[len(msgs)-1].Role != llm.RoleUser {
			continue
		}
		last := msgs[len(msgs)-1]
		if strings.Contains(last.Content, "what is this?") && len(last.Images) == 1 && last.Images[0].MediaType == "image/png" {
			withImage++
		}
	}
	if withImage != 2 {
		t.Fatalf("the image reached %d of the two requests (first send and retry)", withImage)
	}
}
