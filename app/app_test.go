package app_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/hermes-go/hermes/agent"
	"github.com/hermes-go/hermes/app"
	"github.com/hermes-go/hermes/config"
	"github.com/hermes-go/hermes/llm"
	"github.com/hermes-go/hermes/llm/llmtest"
	"github.com/hermes-go/hermes/tool"
)

// newConfig is a configuration for a custom endpoint at url, in a fresh
// HERMES_HOME.
func newConfig(t testing.TB, url string) *config.Config {
	t.Helper()
	cfg := config.Default()
	cfg.Home = t.TempDir()
	cfg.Provider, cfg.BaseURL, cfg.APIKey, cfg.Model.Name = "custom", url, "sk-test", "primary-model"
	return cfg
}

func newRuntime(t testing.TB, cfg *config.Config, opts app.Options) *app.Runtime {
	t.Helper()
	if opts.Workdir == "" {
		opts.Workdir = t.TempDir()
	}
	if opts.Getenv == nil {
		opts.Getenv = func(string) string { return "" } // no keys, no HERMES_HOME from the developer's shell
	}
	rt, err := app.New(context.Background(), cfg, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := rt.Close(); err != nil {
			t.Error(err)
		}
	})
	return rt
}

// open opens a conversation on rt, closed when the test ends (before the
// runtime, whose cleanup was registered first).
func open(t testing.TB, rt *app.Runtime, o app.ConversationOptions) *app.Conversation {
	t.Helper()
	c, err := rt.Open(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := c.Close(); err != nil {
			t.Error(err)
		}
	})
	return c
}

func echo() tool.Tool {
	return tool.Func{S: tool.Spec{Name: "my_echo", Toolset: "mine"}, Fn: func(ctx context.Context, c tool.Call) (tool.Result, error) {
		return tool.Text("echoed " + string(c.Args)), nil
	}}
}

func names(defs []llm.ToolDef) []string {
	var out []string
	for _, d := range defs {
		out = append(out, d.Name)
	}
	return out
}

func TestTheRuntimeOffersTheDefaultToolsAndStoresTheSession(t *testing.T) {
	srv := llmtest.NewServer(t)
	srv.Enqueue(
		llmtest.Reply{ToolCalls: []llm.ToolCall{{ID: "c1", Name: "my_echo", Arguments: `{"x":1}`}, {ID: "c2", Name: "terminal", Arguments: `{"command":"echo from-the-shell"}`}}},
		llmtest.Reply{Text: "done"},
	)
	rt := newRuntime(t, newConfig(t, srv.URL()), app.Options{Source: "embedder", Tools: []tool.Tool{echo()}})
	res, err := open(t, rt, app.ConversationOptions{}).Run(context.Background(), agent.Input{Message: "go"})
	if err != nil || !res.Completed || res.FinalResponse != "done" {
		t.Fatalf("res %+v err %v", res, err)
	}
	offered := names(srv.Requests()[0].Tools())
	for _, want := range []string{"my_echo", "terminal", "read_file", "write_file", "patch", "search_files", "memory", "todo", "clarify", "delegate_task", "skill_manage"} {
		if !slices.Contains(offered, want) {
			t.Errorf("%s not offered; offered %v", want, offered)
		}
	}
	if sys := srv.Requests()[0].System(); !strings.Contains(sys, "primary-model") {
		t.Errorf("system prompt does not name the model:\n%s", sys)
	}
	ctx := context.Background()
	s, err := rt.Store().Get(ctx, res.SessionID)
	if err != nil || s.Source != "embedder" || s.Cwd != rt.Workdir() || s.Model != "primary-model" {
		t.Fatalf("stored session %+v err %v", s, err)
	}
	msgs, err := rt.Store().Messages(ctx, res.SessionID)
	if err != nil || len(msgs) != 5 {
		t.Fatalf("%d stored messages, err %v", len(msgs), err)
	}
	if msgs[2].Content != `echoed {"x":1}` || !strings.Contains(msgs[3].Content, "from-the-shell") {
		t.Fatalf("tool results stored: %q, %q", msgs[2].Content, msgs[3].Content)
	}
}

func TestAFailingPrimaryFallsBackInOneLayer(t *testing.T) {
	primary, backup := llmtest.NewServer(t), llmtest.NewServer(t)
	primary.Enqueue(llmtest.Error(429, ""))
	backup.Enqueue(llmtest.Reply{Text: "from the backup"})
	cfg := newConfig(t, primary.URL())
	cfg.Providers = map[string]config.ProviderConf{"spare": {BaseURL: backup.URL(), KeyEnv: "SPARE_KEY"}}
	cfg.FallbackProviders = []config.FallbackProvider{{Provider: "spare", Model: "backup-model"}}
	var mu sync.Mutex
	var fallbacks []agent.Event
	rt := newRuntime(t, cfg, app.Options{
		Getenv: func(k string) string {
			if k == "SPARE_KEY" {
				return "sk-spare"
			}
			return ""
		},
	})
	c := open(t, rt, app.ConversationOptions{Observer: func(e agent.Event) {
		if e.Kind == agent.EventFallback {
			mu.Lock()
			fallbacks = append(fallbacks, e)
			mu.Unlock()
		}
	}})
	res, err := c.Run(context.Background(), agent.Input{Message: "hi"})
	if err != nil || !res.Completed || res.FinalResponse != "from the backup" {
		t.Fatalf("res %+v err %v", res, err)
	}
	if res.Model != "backup-model" || res.Provider != "spare" {
		t.Fatalf("result names %s/%s", res.Provider, res.Model)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(fallbacks) != 1 || !strings.Contains(fallbacks[0].Text, "spare/backup-model") {
		t.Fatalf("fallback events %+v", fallbacks)
	}
	// The backup's prompt names the backup; the primary's named the primary.
	if sys := backup.Requests()[0].System(); !strings.Contains(sys, "backup-model") || strings.Contains(sys, "primary-model") {
		t.Fatalf("backup got the system prompt:\n%s", sys)
	}
}

func TestALongConversationIsCompressedIntoAChildSession(t *testing.T) {
	srv := llmtest.NewServer(t)
	long := strings.Repeat("lorem ipsum ", 2000) // ~6,000 tokens
	srv.Enqueue(
		llmtest.Reply{Text: long},
		llmtest.Reply{Text: "## Summary\nThe user asked for filler text."},
		llmtest.Reply{Text: "short answer"},
	)
	cfg := newConfig(t, srv.URL())
	cfg.Model.ContextLength = 8000
	cfg.Compression.ProtectFirstN, cfg.Compression.ProtectLastN = 1, 1
	rt := newRuntime(t, cfg, app.Options{})
	c := open(t, rt, app.ConversationOptions{})
	ctx := context.Background()
	first, err := c.Run(ctx, agent.Input{Message: "write a lot"})
	if err != nil || !first.Completed {
		t.Fatalf("first turn %+v %v", first, err)
	}
	second, err := c.Run(ctx, agent.Input{Message: "now be brief"})
	if err != nil || !second.Completed || second.FinalResponse != "short answer" {
		t.Fatalf("second turn %+v %v", second, err)
	}
	if second.SessionID == first.SessionID {
		t.Fatal("the compressed conversation did not move to a child session")
	}
	child, err := rt.Store().Get(ctx, second.SessionID)
	if err != nil || child.ParentID != first.SessionID {
		t.Fatalf("child session %+v err %v", child, err)
	}
	if sent := srv.Requests()[2].Messages(); len(sent) != 4 || sent[1].Content != "write a lot" || !strings.Contains(sent[2].Content, "filler text") || sent[3].Content != "now be brief" {
		t.Fatalf("the call after compression sent %d messages: %+v", len(sent), sent)
	}
}

func TestResumeContinuesTheStoredConversation(t *testing.T) {
	srv := llmtest.NewServer(t)
	srv.Enqueue(llmtest.Reply{Text: "first answer"}, llmtest.Reply{Text: "second answer"})
	cfg := newConfig(t, srv.URL())
	rt, err := app.New(context.Background(), cfg, app.Options{Workdir: t.TempDir(), Getenv: func(string) string { return "" }})
	if err != nil {
		t.Fatal(err)
	}
	c, err := rt.Open(context.Background(), app.ConversationOptions{})
	if err != nil {
		t.Fatal(err)
	}
	res, err := c.Run(context.Background(), agent.Input{Message: "remember 42"})
	if err != nil || !res.Completed {
		t.Fatal(res, err)
	}
	if err := c.End("user_exit"); err != nil {
		t.Fatal(err)
	}
	// The runtime's Close closes the conversation, releasing its session.
	if err := rt.Close(); err != nil {
		t.Fatal(err)
	}
	again := open(t, newRuntime(t, cfg, app.Options{}), app.ConversationOptions{Resume: "latest"})
	if again.SessionID() != res.SessionID {
		t.Fatalf("resumed %s, want %s", again.SessionID(), res.SessionID)
	}
	if _, err := again.Chat(context.Background(), "what number?"); err != nil {
		t.Fatal(err)
	}
	sent := srv.Requests()[1].Messages()
	if len(sent) != 4 || sent[1].Content != "remember 42" || sent[2].Content != "first answer" {
		t.Fatalf("resumed call sent %+v", sent)
	}
}

func TestBadSettingsAreConfigErrors(t *testing.T) {
	srv := llmtest.NewServer(t)
	srv.AllowUnexpected()
	cfg := newConfig(t, srv.URL())
	cfg.Model.Name = "claude-sonnet-4-5"
	cfg.PromptCaching.CacheTTL = "2h"
	_, err := app.New(context.Background(), cfg, app.Options{Workdir: t.TempDir(), Getenv: func(string) string { return "" }})
	var ce *app.ConfigError
	if !errors.As(err, &ce) || !strings.Contains(err.Error(), "cache_ttl") {
		t.Fatalf("err = %v, want a ConfigError naming cache_ttl", err)
	}
	cfg = newConfig(t, srv.URL())
	cfg.Hooks.PreToolCall = []config.ShellHook{{Matcher: "([", Command: "true"}}
	if _, err := app.New(context.Background(), cfg, app.Options{Workdir: t.TempDir(), Getenv: func(string) string { return "" }}); !errors.As(err, &ce) {
		t.Fatalf("bad hook matcher: err = %v, want a ConfigError", err)
	}
}

func TestWithoutAPersonDangerousCommandsAreDenied(t *testing.T) {
	srv := llmtest.NewServer(t)
	srv.Enqueue(
		llmtest.Reply{ToolCalls: []llm.ToolCall{{ID: "c1", Name: "terminal", Arguments: `{"command":"rm -rf ./build"}`}}},
		llmtest.Reply{Text: "could not"},
	)
	rt := newRuntime(t, newConfig(t, srv.URL()), app.Options{})
	res, err := open(t, rt, app.ConversationOptions{}).Run(context.Background(), agent.Input{Message: "clean up"})
	if err != nil || !res.Completed {
		t.Fatal(res, err)
	}
	result := srv.Requests()[1].Messages()
	if last := result[len(result)-1]; last.Role != llm.RoleTool || !strings.Contains(strings.ToLower(last.Content), "denied") {
		t.Fatalf("the model read %q, want a denial", last.Content)
	}
}

// A toolsets setting naming no toolset is a configuration error, not a
// model left without tools; an embedder's own toolset counts as known.
func TestUnknownToolsetIsAConfigError(t *testing.T) {
	cfg := newConfig(t, "http://127.0.0.1:9/v1")
	cfg.Toolsets = []string{"terminal", "termnial"}
	_, err := app.New(context.Background(), cfg, app.Options{Workdir: t.TempDir(), Getenv: func(string) string { return "" }})
	var ce *app.ConfigError
	if !errors.As(err, &ce) || !strings.Contains(err.Error(), `"termnial"`) || !strings.Contains(err.Error(), "session_search") {
		t.Fatalf("err = %v", err)
	}
	cfg = newConfig(t, "http://127.0.0.1:9/v1")
	cfg.Toolsets = []string{"mine", "memory"}
	rt := newRuntime(t, cfg, app.Options{Tools: []tool.Tool{echo()}})
	if rt == nil {
		t.Fatal("no runtime")
	}
}
