package slash

import (
	"context"
	"encoding/json"
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
	return Builtin(), &fakeHost{rt: rt}
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
	rt := h.rt
	first := rt.Agent().SessionID()
	rt.Agent().Chat(ctx, "remember the word kumquat")
	if err := run(t, r, h, "/title fruit talk"); err != nil {
		t.Fatal(err)
	}
	if err := run(t, r, h, "/new"); err != nil || rt.Agent().SessionID() == first || !strings.Contains(h.out(), "/resume "+first) {
		t.Fatalf("/new: %v %s", err, h.out())
	}
	rt.Agent().Chat(ctx, "something else")
	if err := run(t, r, h, "/sessions"); err != nil || !strings.Contains(h.out(), "fruit talk") || !strings.Contains(h.out(), "* "+rt.Agent().SessionID()) {
		t.Fatalf("/sessions: %v\n%s", err, h.out())
	}
	if err := run(t, r, h, "/resume fruit talk"); err != nil || rt.Agent().SessionID() != first {
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

func TestUndoAndRetryDropTheLastExchange(t *testing.T) {
	srv := llmtest.NewServer(t)
	srv.AllowUnexpected()
	n := 0
	srv.Handle(func(r *llmtest.Request) llmtest.Reply { n++; return llmtest.Reply{Text: "answer"} })
	r, h := chat(t, srv, "")
	ctx := context.Background()
	rt := h.rt
	if err := run(t, r, h, "/undo"); err == nil {
		t.Fatal("undo of nothing succeeded")
	}
	rt.Agent().Chat(ctx, "one")
	rt.Agent().Chat(ctx, "two")
	if err := run(t, r, h, "/retry"); err != nil || len(h.sent) != 1 || h.sent[0] != "two" {
		t.Fatalf("/retry: %v sent %q", err, h.sent)
	}
	if len(rt.Agent().History()) != 2 {
		t.Fatalf("/retry kept the old answer: %+v", rt.Agent().History())
	}
	if err := run(t, r, h, "/undo"); err != nil || len(rt.Agent().History()) != 0 {
		t.Fatalf("/undo: %v history %+v", err, rt.Agent().History())
	}
	msgs, _ := rt.Store().Messages(ctx, rt.Agent().SessionID())
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
	h.rt.Agent().Chat(context.Background(), "hi")
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
	h.rt.Agent().Chat(context.Background(), "hi")
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
	if !h.rt.Yolo() || h.kinds[len(h.kinds)-1] != Warning {
		t.Fatal("/yolo did not turn it on")
	}
	run(t, r, h, "/yolo")
	if h.rt.Yolo() {
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
	old := h.rt.Agent().SessionID()
	if err := run(t, r, h, "/clear"); err != nil || h.rt.Agent().SessionID() == old || len(h.resets) != 1 || h.resets[0] != nil {
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
	h.rt.Agent().Chat(context.Background(), "rewrite the notes")
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
	if _, err := h.rt.Agent().Chat(ctx, "what is this?"); err != nil {
		t.Fatal(err)
	}
	if err := run(t, r, h, "/retry"); err != nil {
		t.Fatal(err)
	}
	if _, err := h.rt.Agent().Chat(ctx, h.sent[len(h.sent)-1]); err != nil {
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
