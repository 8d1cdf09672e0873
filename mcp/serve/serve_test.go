package serve_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hermes-go/hermes/app"
	"github.com/hermes-go/hermes/config"
	"github.com/hermes-go/hermes/llm"
	"github.com/hermes-go/hermes/llm/llmtest"
	"github.com/hermes-go/hermes/mcp/serve"
	"github.com/hermes-go/hermes/sandbox"
)

func TestMain(m *testing.M) {
	sandbox.MaybeRunHelper()
	os.Exit(m.Run())
}

// bound only turns a hang into a failure.
const bound = 30 * time.Second

type fixture struct {
	llm *llmtest.Server
	rt  *app.Runtime
	srv *serve.Server
	cwd string
}

// newFixture is a server over a runtime whose model is a fake provider
// and whose store is a real SQLite file.
func newFixture(t *testing.T) *fixture {
	t.Helper()
	f := &fixture{llm: llmtest.NewServer(t), cwd: t.TempDir()}
	cfg := config.Default()
	cfg.Home = t.TempDir()
	cfg.Provider, cfg.BaseURL, cfg.APIKey, cfg.Model.Name = "custom", f.llm.URL(), "sk-model", "test-model"
	rt, err := app.New(context.Background(), cfg, app.Options{Source: serve.Source, Platform: "api", Workdir: f.cwd,
		Getenv: func(string) string { return "" }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rt.Close() })
	f.rt = rt
	f.srv, err = serve.New(context.Background(), serve.Options{Runtime: rt, Version: "test", PollInterval: 10 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// client records what a client receives.
type client struct {
	mu       sync.Mutex
	progress []string
	changed  chan struct{}
	elicits  []string
}

func (c *client) onProgress(_ context.Context, r *sdk.ProgressNotificationClientRequest) {
	c.mu.Lock()
	c.progress = append(c.progress, r.Params.Message)
	if c.changed != nil {
		close(c.changed)
		c.changed = nil
	}
	c.mu.Unlock()
}

// waitProgress waits for the progress messages, run together, to hold
// want, and returns them.
func (c *client) waitProgress(t *testing.T, want string) []string {
	t.Helper()
	deadline := time.After(bound)
	for {
		c.mu.Lock()
		got := append([]string(nil), c.progress...)
		if c.changed == nil {
			c.changed = make(chan struct{})
		}
		changed := c.changed
		c.mu.Unlock()
		if strings.Contains(strings.Join(got, ""), want) {
			return got
		}
		select {
		case <-changed:
		case <-deadline:
			t.Fatalf("no progress message holds %q; got %q", want, got)
		}
	}
}

// connect connects an in-process go-sdk client to the server.
func (f *fixture) connect(t *testing.T, opts *sdk.ClientOptions) *sdk.ClientSession {
	t.Helper()
	return f.connectVersion(t, opts, "")
}

// connectVersion is connect on a protocol version ("" the latest).
func (f *fixture) connectVersion(t *testing.T, opts *sdk.ClientOptions, version string) *sdk.ClientSession {
	t.Helper()
	ct, st := sdk.NewInMemoryTransports()
	ss, err := f.srv.MCP().Connect(context.Background(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "test-client", Version: "1"}, opts).Connect(context.Background(), ct,
		&sdk.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		t.Fatal(err)
	}
	if version != "" && ss.InitializeParams().ProtocolVersion != version {
		t.Fatalf("negotiated %s, want %s", ss.InitializeParams().ProtocolVersion, version)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// call calls a tool and fails the test on a protocol error.
func call(t *testing.T, cs *sdk.ClientSession, name string, args any) *sdk.CallToolResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), bound)
	defer cancel()
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return res
}

func text(res *sdk.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*sdk.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

// structured decodes a result's structured content into v.
func structured(t *testing.T, res *sdk.CallToolResult, v any) {
	t.Helper()
	b, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("structured content %s: %v", b, err)
	}
}

func sessionID(t *testing.T, res *sdk.CallToolResult) string {
	t.Helper()
	var out struct {
		SessionID string `json:"session_id"`
		Status    string `json:"status"`
	}
	structured(t, res, &out)
	if out.SessionID == "" {
		t.Fatalf("no session_id in %s", text(res))
	}
	return out.SessionID
}

func terminal(id, command string) llmtest.Reply {
	args, _ := json.Marshal(map[string]string{"command": command})
	return llmtest.Reply{ToolCalls: []llm.ToolCall{{ID: id, Name: "terminal", Arguments: string(args)}}}
}

// run_task runs the prompt in a fresh "mcp" session, streams the tool
// call and the text as progress, and answers with the text and the
// session id; the conversation tools and session_search then see it.
func TestRunTaskAnswersStreamsProgressAndIsStored(t *testing.T) {
	f := newFixture(t)
	f.llm.Enqueue(terminal("call_echo", "echo quokka-marker > found.txt"), llmtest.Reply{Text: "The quokka is written."})
	c := &client{}
	cs := f.connect(t, &sdk.ClientOptions{ProgressNotificationHandler: c.onProgress})

	ctx, cancel := context.WithTimeout(context.Background(), bound)
	defer cancel()
	params := &sdk.CallToolParams{Name: "run_task", Arguments: map[string]any{"prompt": "write the zanzibar quokka to found.txt"}}
	params.SetProgressToken("tok-1")
	res, err := cs.CallTool(ctx, params)
	if err != nil {
		t.Fatal(err)
	}
	if res.IsError || text(res) != "The quokka is written." {
		t.Fatalf("run_task answered %q (error %v)", text(res), res.IsError)
	}
	id := sessionID(t, res)
	if b, err := os.ReadFile(filepath.Join(f.cwd, "found.txt")); err != nil || strings.TrimSpace(string(b)) != "quokka-marker" {
		t.Fatalf("the command did not run in the workspace: %q %v", b, err)
	}
	got := c.waitProgress(t, "quokka is written")
	joined := strings.Join(got, "\n")
	for _, want := range []string{"tool started: terminal", "echo quokka-marker", "tool finished: terminal (ok)"} {
		if !strings.Contains(joined, want) {
			t.Errorf("progress lacks %q:\n%s", want, joined)
		}
	}

	stored, err := f.rt.Store().Get(context.Background(), id)
	if err != nil || stored.Source != serve.Source {
		t.Fatalf("stored session %+v, %v", stored, err)
	}

	var list struct {
		Count         int
		Conversations []struct {
			SessionID string `json:"session_id"`
			Source    string
			Preview   string
		}
	}
	structured(t, call(t, cs, "conversations_list", map[string]any{"search": "zanzibar"}), &list)
	if list.Count != 1 || list.Conversations[0].SessionID != id || list.Conversations[0].Source != "mcp" {
		t.Fatalf("conversations_list: %+v", list)
	}
	structured(t, call(t, cs, "conversations_list", map[string]any{"search": "no-such-thing"}), &list)
	if list.Count != 0 {
		t.Fatalf("a search that matches nothing listed %+v", list)
	}

	var conv struct {
		SessionID    string `json:"session_id"`
		Source       string
		Cwd          string
		MessageCount int `json:"message_count"`
	}
	structured(t, call(t, cs, "conversation_get", map[string]any{"session_id": id}), &conv)
	if conv.SessionID != id || conv.Source != "mcp" || conv.Cwd != f.cwd || conv.MessageCount != 4 {
		t.Fatalf("conversation_get: %+v", conv)
	}

	var read struct {
		Count    int
		Total    int `json:"total_in_session"`
		Messages []struct{ Role, Content string }
	}
	structured(t, call(t, cs, "messages_read", map[string]any{"session_id": id}), &read)
	if read.Count != 2 || read.Messages[0].Role != "user" || !strings.Contains(read.Messages[0].Content, "zanzibar") ||
		read.Messages[1].Role != "assistant" || read.Messages[1].Content != "The quokka is written." {
		t.Fatalf("messages_read: %+v", read)
	}
	structured(t, call(t, cs, "messages_read", map[string]any{"session_id": id, "limit": 1}), &read)
	if read.Count != 1 || read.Total != 2 || read.Messages[0].Role != "assistant" {
		t.Fatalf("messages_read limit 1: %+v", read)
	}

	found := call(t, cs, "session_search", map[string]any{"query": "zanzibar"})
	var hits struct {
		Results []struct {
			SessionID string `json:"session_id"`
			Matches   []struct{ Snippet string }
		}
	}
	if err := json.Unmarshal([]byte(text(found)), &hits); err != nil || found.IsError || len(hits.Results) != 1 ||
		hits.Results[0].SessionID != id || !strings.Contains(hits.Results[0].Matches[0].Snippet, ">>>zanzibar<<<") {
		t.Fatalf("session_search: %s (%v)", text(found), err)
	}

	if res := call(t, cs, "conversation_get", map[string]any{"session_id": "nope-nope"}); !res.IsError || !strings.Contains(text(res), "no conversation") {
		t.Fatalf("an unknown session: %s", text(res))
	}
}

// messages_send continues a stored session: the model reads the earlier
// turn, and the reply lands in the same session.
func TestMessagesSendContinuesASession(t *testing.T) {
	f := newFixture(t)
	f.llm.Enqueue(llmtest.Reply{Text: "First answer."}, llmtest.Reply{Text: "Second answer."})
	cs := f.connect(t, nil)
	id := sessionID(t, call(t, cs, "run_task", map[string]any{"prompt": "first question"}))
	res := call(t, cs, "messages_send", map[string]any{"session_id": id, "message": "second question"})
	if res.IsError || text(res) != "Second answer." || sessionID(t, res) != id {
		t.Fatalf("messages_send: %q %v", text(res), res.StructuredContent)
	}
	sent := f.llm.Requests()[1].Messages()
	var b strings.Builder
	for _, m := range sent {
		b.WriteString(m.Content + "\n")
	}
	if !strings.Contains(b.String(), "first question") || !strings.Contains(b.String(), "First answer.") {
		t.Fatalf("the second turn did not carry the first:\n%s", b.String())
	}
	msgs, err := f.rt.Store().Messages(context.Background(), id)
	if err != nil || len(msgs) != 4 || msgs[3].Content != "Second answer." {
		t.Fatalf("stored %d messages, %v", len(msgs), err)
	}
}

// A toolset the runtime does not have, and an empty prompt, are tool
// errors the client reads; nothing runs.
func TestRunTaskRefusesBadArguments(t *testing.T) {
	f := newFixture(t)
	cs := f.connect(t, nil)
	if res := call(t, cs, "run_task", map[string]any{"prompt": "x", "toolsets": []string{"no-such-toolset"}}); !res.IsError ||
		!strings.Contains(text(res), "no-such-toolset") {
		t.Fatalf("unknown toolset: %s", text(res))
	}
	if res := call(t, cs, "run_task", map[string]any{"prompt": "  "}); !res.IsError {
		t.Fatalf("empty prompt: %s", text(res))
	}
	if res := call(t, cs, "run_task", map[string]any{"prompt": "x", "workdir": filepath.Join(f.cwd, "missing")}); !res.IsError {
		t.Fatalf("a missing workdir: %s", text(res))
	}
	if n := len(f.llm.Requests()); n != 0 {
		t.Fatalf("%d model calls", n)
	}
}
