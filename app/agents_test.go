package app_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/hermes-go/hermes/agent"
	"github.com/hermes-go/hermes/app"
	"github.com/hermes-go/hermes/config"
	"github.com/hermes-go/hermes/internal/mcptest"
	"github.com/hermes-go/hermes/llm"
	"github.com/hermes-go/hermes/llm/llmtest"
	"github.com/hermes-go/hermes/session"
)

// Conversations of one runtime run at once, each in its own stored
// session; a later conversation resumes one from the store alone.
func TestConversationsOfOneRuntimeKeepTheirSessionsInTheStore(t *testing.T) {
	srv := llmtest.NewServer(t)
	srv.Handle(func(r *llmtest.Request) llmtest.Reply {
		msgs := r.Messages()
		return llmtest.Reply{Text: "you said " + msgs[len(msgs)-1].Content}
	})
	rt := newRuntime(t, newConfig(t, srv.URL()), app.Options{Source: "api_server"})
	ctx := context.Background()
	ids := make([]string, 8)
	var wg sync.WaitGroup
	for i := range ids {
		wg.Add(1)
		go func() {
			defer wg.Done()
			a, err := rt.Open(ctx, app.ConversationOptions{})
			if err != nil {
				t.Error(err)
				return
			}
			defer a.Close()
			res, err := a.Run(ctx, agent.Input{Message: "n" + string(rune('0'+i))})
			if err != nil || !res.Completed || res.FinalResponse != "you said n"+string(rune('0'+i)) {
				t.Errorf("turn %d: %+v %v", i, res, err)
				return
			}
			ids[i] = res.SessionID
		}()
	}
	wg.Wait()
	seen := map[string]bool{}
	for i, id := range ids {
		s, err := rt.Store().Get(ctx, id)
		if err != nil || s.Source != "api_server" || s.MessageCount != 2 || seen[id] {
			t.Fatalf("conversation %d: session %+v err %v", i, s, err)
		}
		seen[id] = true
	}

	again := open(t, rt, app.ConversationOptions{Resume: ids[3]})
	if _, err := again.Chat(ctx, "and now?"); err != nil {
		t.Fatal(err)
	}
	reqs := srv.Requests()
	sent := reqs[len(reqs)-1].Messages()
	if len(sent) != 4 || sent[1].Content != "n3" || sent[2].Content != "you said n3" {
		t.Fatalf("resumed turn sent %+v", sent)
	}
}

// A conversation holds its session: another conversation cannot resume
// it until it is closed.
func TestAConversationHoldsItsSessionUntilClosed(t *testing.T) {
	srv := llmtest.NewServer(t)
	srv.Enqueue(llmtest.Reply{Text: "one"})
	rt := newRuntime(t, newConfig(t, srv.URL()), app.Options{})
	ctx := context.Background()
	a := open(t, rt, app.ConversationOptions{})
	res, err := a.Run(ctx, agent.Input{Message: "hi"})
	if err != nil || !res.Completed {
		t.Fatal(res, err)
	}
	_, err = rt.Open(ctx, app.ConversationOptions{Resume: res.SessionID})
	var ce *app.ConfigError
	if !errors.Is(err, session.ErrBusy) || !errors.As(err, &ce) {
		t.Fatalf("second conversation on a held session: err = %v", err)
	}
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	b, err := rt.Open(ctx, app.ConversationOptions{Resume: res.SessionID})
	if err != nil {
		t.Fatalf("after Close: %v", err)
	}
	b.Close()
}

// Nobody attends a server: the model reads why its command was not run.
func TestAnUnattendedConversationTellsTheModelWhyACommandWasDenied(t *testing.T) {
	srv := llmtest.NewServer(t)
	srv.Enqueue(
		llmtest.Reply{ToolCalls: []llm.ToolCall{{ID: "c1", Name: "terminal", Arguments: `{"command":"rm -rf ./build"}`}}},
		llmtest.Reply{Text: "could not"},
	)
	rt := newRuntime(t, newConfig(t, srv.URL()), app.Options{})
	a := open(t, rt, app.ConversationOptions{Unattended: "the API server runs unattended (approvals.unattended_mode: deny)"})
	if _, err := a.Chat(context.Background(), "clean up"); err != nil {
		t.Fatal(err)
	}
	msgs := srv.Requests()[1].Messages()
	last := msgs[len(msgs)-1]
	if last.Role != llm.RoleTool || !strings.Contains(last.Content, "DENIED") || !strings.Contains(last.Content, "approvals.unattended_mode: deny") {
		t.Fatalf("the model read %q", last.Content)
	}
}

// A conversation in another workspace runs its commands there, under its
// own sandbox; read-only refuses writes the runtime's own mode allows.
func TestAConversationInAnotherWorkspaceGetsItsOwnSandbox(t *testing.T) {
	srv := llmtest.NewServer(t)
	srv.Enqueue(
		llmtest.Reply{ToolCalls: []llm.ToolCall{{ID: "c1", Name: "terminal", Arguments: `{"command":"pwd"}`}}},
		llmtest.Reply{Text: "listed"},
		llmtest.Reply{ToolCalls: []llm.ToolCall{{ID: "c2", Name: "write_file", Arguments: `{"path":"new.txt","content":"x"}`}}},
		llmtest.Reply{Text: "tried"},
	)
	rt := newRuntime(t, newConfig(t, srv.URL()), app.Options{})
	ws := filepath.Join(t.TempDir(), "editor-project")
	if err := os.Mkdir(ws, 0o755); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	a := open(t, rt, app.ConversationOptions{Workdir: ws})
	if _, err := a.Chat(ctx, "where am I?"); err != nil {
		t.Fatal(err)
	}
	if got := srv.Requests()[1].LastToolResult(); !strings.Contains(got, ws) {
		t.Fatalf("pwd said %q, want %s", got, ws)
	}
	s, _ := rt.Store().Get(ctx, a.SessionID())
	a.Close()
	if s.Cwd != ws {
		t.Fatalf("session cwd %q", s.Cwd)
	}

	ro := open(t, rt, app.ConversationOptions{Workdir: ws, Sandbox: "read-only"})
	if _, err := ro.Chat(ctx, "write something"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(ws, "new.txt")); err == nil {
		t.Fatal("a read-only conversation wrote a file")
	}
	if got := srv.Requests()[3].LastToolResult(); !strings.Contains(strings.ToLower(got), "read-only") {
		t.Fatalf("the model read %q", got)
	}
}

// Between turns, a conversation past the fraction of the context window
// is compressed into a child session before the next turn runs.
func TestCompressOverCompressesALongConversationBeforeTheTurn(t *testing.T) {
	srv := llmtest.NewServer(t)
	srv.Enqueue(
		llmtest.Reply{Text: strings.Repeat("lorem ipsum ", 4000)}, // ~12,000 tokens
		llmtest.Reply{Text: "done"},
		llmtest.Reply{Text: "## Summary\nThe user asked for filler text."},
	)
	cfg := newConfig(t, srv.URL())
	cfg.Model.ContextLength = 20_000
	cfg.Compression.Threshold = 0.95 // the loop's own preflight (tools included) stays out of it
	cfg.Compression.ProtectFirstN, cfg.Compression.ProtectLastN = 1, 1
	rt := newRuntime(t, cfg, app.Options{})
	ctx := context.Background()
	a := open(t, rt, app.ConversationOptions{})
	for _, m := range []string{"write a lot", "thanks"} {
		if _, err := a.Chat(ctx, m); err != nil {
			t.Fatal(err)
		}
	}
	first := a.SessionID()
	if did, err := a.CompressOver(ctx, 0.85); did || err != nil {
		t.Fatalf("under 85%%: compressed %v err %v", did, err)
	}
	if did, err := a.CompressOver(ctx, 0.5); !did || err != nil {
		t.Fatalf("over 50%%: compressed %v err %v", did, err)
	}
	a.Close()
	child, err := rt.Store().Get(ctx, a.SessionID())
	if err != nil || child.ParentID != first {
		t.Fatalf("child %+v err %v", child, err)
	}
}

// BenchmarkOpenAndCloseWithoutATurn is the cost of one conversation
// over a runtime's shared parts: what a server pays per request before
// the model call.
func BenchmarkOpenAndCloseWithoutATurn(b *testing.B) {
	cfg := config0(b)
	rt, err := app.New(context.Background(), cfg, app.Options{Workdir: b.TempDir(), Getenv: func(string) string { return "" }})
	if err != nil {
		b.Fatal(err)
	}
	defer rt.Close()
	b.ReportAllocs()
	for b.Loop() {
		c, err := rt.Open(context.Background(), app.ConversationOptions{})
		if err != nil {
			b.Fatal(err)
		}
		c.Close()
	}
}

func config0(b *testing.B) *config.Config {
	cfg := config.Default()
	cfg.Home = b.TempDir()
	cfg.Provider, cfg.BaseURL, cfg.APIKey, cfg.Model.Name = "custom", "http://127.0.0.1:9/v1", "sk-test", "m"
	return cfg
}

// A workspace kept across a conversation (ACP keeps one per session)
// follows the runtime's tools: a server added and reloaded after the
// workspace was made serves the conversation's next prompt.
func TestAWorkspaceFollowsToolsThatJoinLater(t *testing.T) {
	srv := llmtest.NewServer(t)
	srv.Enqueue(llmtest.Reply{Text: "ok"})
	cfg := newConfig(t, srv.URL())
	rt := newRuntime(t, cfg, app.Options{})
	ws, err := rt.NewWorkspace(t.TempDir(), "")
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	exe, _ := os.Executable()
	writeFile(t, filepath.Join(cfg.Home, "config.yaml"), "mcp_servers:\n  late:\n    command: "+exe+"\n    env:\n      "+mcptest.ServeEnv+": \"1\"\n      GORACE: atexit_sleep_ms=0\n")
	ctx := context.Background()
	if err := rt.ReloadMCP(ctx); err != nil {
		t.Fatal(err)
	}
	a := open(t, rt, app.ConversationOptions{Workspace: ws})
	if _, err := a.Chat(ctx, "what can you do?"); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, d := range srv.Requests()[0].Tools() {
		names = append(names, d.Name)
	}
	if !slices.Contains(names, "mcp__late__echo") || !slices.Contains(names, "terminal") {
		t.Fatalf("the workspace's conversation was offered %v", names)
	}
}
