package acp_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/hermes-go/hermes/acp"
	"github.com/hermes-go/hermes/app"
	"github.com/hermes-go/hermes/config"
	"github.com/hermes-go/hermes/llm"
	"github.com/hermes-go/hermes/llm/llmtest"
	"github.com/hermes-go/hermes/sandbox"
)

func TestMain(m *testing.M) {
	sandbox.MaybeRunHelper()
	os.Exit(m.Run())
}

// editor is an ACP client, as an editor is: it records the updates and
// answers permission requests with answer.
type editor struct {
	sdk.Client // methods an editor offers that hermes does not call

	mu          sync.Mutex
	updates     []sdk.SessionUpdate
	changed     chan struct{} // closed at the next update
	permissions []sdk.RequestPermissionRequest
	answer      string // option id; "" cancels
}

func (e *editor) SessionUpdate(ctx context.Context, n sdk.SessionNotification) error {
	e.mu.Lock()
	e.updates = append(e.updates, n.Update)
	if e.changed != nil {
		close(e.changed)
		e.changed = nil
	}
	e.mu.Unlock()
	return nil
}

func (e *editor) snapshot() []sdk.SessionUpdate {
	e.mu.Lock()
	defer e.mu.Unlock()
	return slices.Clone(e.updates)
}

// waitText waits for the agent's message text to hold want, and returns
// it; the bound only turns a hang into a failure.
func (e *editor) waitText(t testing.TB, want string) string {
	t.Helper()
	bound := time.After(30 * time.Second)
	for {
		e.mu.Lock()
		if e.changed == nil {
			e.changed = make(chan struct{})
		}
		changed := e.changed
		e.mu.Unlock()
		if text := e.text(); strings.Contains(text, want) {
			return text
		}
		select {
		case <-changed:
		case <-bound:
			t.Fatalf("the editor never read %q; it read:\n%s", want, e.text())
		}
	}
}

func (e *editor) RequestPermission(ctx context.Context, p sdk.RequestPermissionRequest) (sdk.RequestPermissionResponse, error) {
	e.mu.Lock()
	e.permissions = append(e.permissions, p)
	answer := e.answer
	e.mu.Unlock()
	if answer == "" {
		return sdk.RequestPermissionResponse{Outcome: sdk.RequestPermissionOutcome{Cancelled: &sdk.RequestPermissionOutcomeCancelled{}}}, nil
	}
	return sdk.RequestPermissionResponse{Outcome: sdk.RequestPermissionOutcome{Selected: &sdk.RequestPermissionOutcomeSelected{OptionId: sdk.PermissionOptionId(answer)}}}, nil
}

func (e *editor) text() string {
	e.mu.Lock()
	defer e.mu.Unlock()
	var b strings.Builder
	for _, u := range e.updates {
		if c := u.AgentMessageChunk; c != nil && c.Content.Text != nil {
			b.WriteString(c.Content.Text.Text)
		}
	}
	return b.String()
}

type fixture struct {
	llm  *llmtest.Server
	rt   *app.Runtime
	conn *sdk.ClientSideConnection
	ed   *editor
	cwd  string
	// close ends the connection as an editor that quits does, and waits
	// for Serve to return.
	close func()
}

// connect starts hermes' ACP side over pipes and an editor on the other
// end, over a runtime whose model is llm.
func connect(t testing.TB, srv *llmtest.Server, home string) *fixture {
	t.Helper()
	return connectWith(t, srv, home, nil)
}

// connectWith is connect with the configuration changed by edit first.
func connectWith(t testing.TB, srv *llmtest.Server, home string, edit func(*config.Config)) *fixture {
	t.Helper()
	cfg := config.Default()
	cfg.Home = home
	cfg.Provider, cfg.BaseURL, cfg.APIKey, cfg.Model.Name = "custom", srv.URL(), "sk-model", "test-model"
	if edit != nil {
		edit(cfg)
	}
	rt, err := app.New(context.Background(), cfg, app.Options{Source: acp.Source, Platform: "acp", Workdir: t.TempDir(),
		Getenv: func(string) string { return "" }})
	if err != nil {
		t.Fatal(err)
	}
	toAgentR, toAgentW := io.Pipe()
	toEditorR, toEditorW := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		acp.Serve(ctx, toAgentR, toEditorW, acp.Options{Runtime: rt, Version: "test", Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	}()
	ed := &editor{}
	conn := sdk.NewClientSideConnection(ed, toAgentW, toEditorR)
	closeConn := sync.OnceFunc(func() {
		toAgentW.Close()
		<-done
		toEditorW.Close()
	})
	t.Cleanup(func() {
		cancel()
		closeConn()
		rt.Close()
	})
	if _, err := conn.Initialize(context.Background(), sdk.InitializeRequest{ProtocolVersion: sdk.ProtocolVersionNumber}); err != nil {
		t.Fatal(err)
	}
	return &fixture{llm: srv, rt: rt, conn: conn, ed: ed, cwd: t.TempDir(), close: closeConn}
}

func (f *fixture) newSession(t testing.TB) sdk.SessionId {
	t.Helper()
	s, err := f.conn.NewSession(context.Background(), sdk.NewSessionRequest{Cwd: f.cwd, McpServers: []sdk.McpServer{}})
	if err != nil {
		t.Fatal(err)
	}
	if s.Modes == nil || s.Modes.CurrentModeId != acp.ModeDefault || len(s.Modes.AvailableModes) != 3 {
		t.Fatalf("modes %+v", s.Modes)
	}
	return s.SessionId
}

func (f *fixture) prompt(t testing.TB, id sdk.SessionId, text string) sdk.StopReason {
	t.Helper()
	r, err := f.conn.Prompt(context.Background(), sdk.PromptRequest{SessionId: id, Prompt: []sdk.ContentBlock{sdk.TextBlock(text)}})
	if err != nil {
		t.Fatal(err)
	}
	return r.StopReason
}

// A prompt's turn streams to the editor: the answer in chunks, each
// tool call with its kind and file location and its update, the todo
// list as the plan; the session is stored for the CLI.
func TestAPromptStreamsTextToolCallsAndThePlan(t *testing.T) {
	srv := llmtest.NewServer(t)
	f := connect(t, srv, t.TempDir())
	os.WriteFile(filepath.Join(f.cwd, "main.go"), []byte("package main\n"), 0o644)
	srv.Enqueue(
		llmtest.Reply{Reasoning: "I should read the file.", ToolCalls: []llm.ToolCall{{ID: "call_1", Name: "read_file", Arguments: `{"path":"main.go"}`}}},
		llmtest.Reply{ToolCalls: []llm.ToolCall{{ID: "call_2", Name: "todo", Arguments: `{"todos":[{"id":"1","content":"add tests","status":"in_progress"}]}`}}},
		llmtest.Reply{Text: "It is an empty main package."},
	)
	id := f.newSession(t)
	if stop := f.prompt(t, id, "what is in main.go?"); stop != sdk.StopReasonEndTurn {
		t.Fatalf("stop %s", stop)
	}
	if got := f.ed.text(); got != "It is an empty main package." {
		t.Fatalf("streamed text %q", got)
	}
	var started *sdk.SessionUpdateToolCall
	var finished *sdk.SessionToolCallUpdate
	var thought bool
	var planned []sdk.PlanEntry
	for _, u := range f.ed.updates {
		switch {
		case u.ToolCall != nil && u.ToolCall.ToolCallId == "call_1":
			started = u.ToolCall
		case u.ToolCallUpdate != nil && u.ToolCallUpdate.ToolCallId == "call_1":
			finished = u.ToolCallUpdate
		case u.AgentThoughtChunk != nil:
			thought = true
		case u.Plan != nil:
			planned = u.Plan.Entries
		}
	}
	want := filepath.Join(f.cwd, "main.go")
	if started == nil || started.Kind != sdk.ToolKindRead || len(started.Locations) != 1 || started.Locations[0].Path != want {
		t.Fatalf("tool call %+v", started)
	}
	if finished == nil || finished.Status == nil || *finished.Status != sdk.ToolCallStatusCompleted || len(finished.Content) == 0 {
		t.Fatalf("tool call update %+v", finished)
	}
	if !thought {
		t.Fatal("the reasoning was not sent as thoughts")
	}
	if len(planned) != 1 || planned[0].Content != "add tests" || planned[0].Status != sdk.PlanEntryStatusInProgress {
		t.Fatalf("plan %+v", planned)
	}
	s, err := f.rt.Store().Get(context.Background(), string(id))
	if err != nil || s.Source != "acp" || s.Cwd != f.cwd {
		t.Fatalf("stored session %+v err %v", s, err)
	}
}

// A dangerous command asks the editor; a reject leaves the victim as it
// was and the model reads the denial; allow once runs it.
func TestPermissionRequestsMapToApprovals(t *testing.T) {
	srv := llmtest.NewServer(t)
	f := connect(t, srv, t.TempDir())
	victim := filepath.Join(f.cwd, "victim")
	os.MkdirAll(filepath.Join(victim, "sub"), 0o755)
	rm := llmtest.Reply{ToolCalls: []llm.ToolCall{{ID: "call_rm", Name: "terminal", Arguments: `{"command":"rm -rf victim"}`}}}
	srv.Enqueue(rm, llmtest.Reply{Text: "Not deleted."}, rm, llmtest.Reply{Text: "Deleted."})
	id := f.newSession(t)

	f.ed.answer = "reject"
	f.prompt(t, id, "delete victim")
	if len(f.ed.permissions) != 1 {
		t.Fatalf("%d permission requests", len(f.ed.permissions))
	}
	p := f.ed.permissions[0]
	var kinds []string
	for _, o := range p.Options {
		kinds = append(kinds, string(o.Kind))
	}
	if p.ToolCall.ToolCallId != "call_rm" || strings.Join(kinds, ",") != "allow_once,allow_always,reject_once" {
		t.Fatalf("permission request %+v", p)
	}
	if _, err := os.Stat(victim); err != nil {
		t.Fatalf("rejected, yet the victim is gone: %v", err)
	}
	if got := srv.Requests()[1].LastToolResult(); !strings.Contains(got, "DENIED") {
		t.Fatalf("the model read %q", got)
	}

	f.ed.answer = "allow_once"
	f.prompt(t, id, "delete it now")
	if _, err := os.Stat(victim); !os.IsNotExist(err) {
		t.Fatalf("allowed once, yet the victim is still there: %v", err)
	}

	// Allow always: saved, and the next such command does not ask.
	for _, d := range []string{"a", "b"} {
		os.MkdirAll(filepath.Join(f.cwd, d, "sub"), 0o755)
		srv.Enqueue(llmtest.Reply{ToolCalls: []llm.ToolCall{{ID: "call_" + d, Name: "terminal", Arguments: `{"command":"rm -rf ` + d + `"}`}}}, llmtest.Reply{Text: "ok"})
	}
	f.ed.answer = "allow_always"
	f.prompt(t, id, "delete a")
	f.ed.answer = "reject"
	f.prompt(t, id, "delete b")
	if len(f.ed.permissions) != 3 {
		t.Fatalf("%d permission requests, want 3 (none after allow always)", len(f.ed.permissions))
	}
	for _, d := range []string{"a", "b"} {
		if _, err := os.Stat(filepath.Join(f.cwd, d)); !os.IsNotExist(err) {
			t.Fatalf("%s was not deleted: %v", d, err)
		}
	}
	if cfg, _ := os.ReadFile(filepath.Join(f.rt.Config().Home, "config.yaml")); !strings.Contains(string(cfg), "command_allowlist") {
		t.Fatalf("allow always was not saved:\n%s", cfg)
	}
}

// session/cancel ends a turn stuck in a model call: the prompt answers
// cancelled.
func TestCancelEndsTheTurn(t *testing.T) {
	srv := llmtest.NewServer(t)
	f := connect(t, srv, t.TempDir())
	srv.Enqueue(llmtest.Reply{Hang: true})
	id := f.newSession(t)
	stop := make(chan sdk.StopReason, 1)
	go func() { stop <- f.prompt(t, id, "take forever") }()
	<-srv.Hanging()
	if err := f.conn.Cancel(context.Background(), sdk.CancelNotification{SessionId: id}); err != nil {
		t.Fatal(err)
	}
	if s := <-stop; s != sdk.StopReasonCancelled {
		t.Fatalf("stop %s", s)
	}
}

// Modes set from the editor: read-only refuses writes, yolo runs a
// dangerous command without asking.
func TestModesAreSetFromTheEditor(t *testing.T) {
	srv := llmtest.NewServer(t)
	f := connect(t, srv, t.TempDir())
	os.MkdirAll(filepath.Join(f.cwd, "build"), 0o755)
	srv.Enqueue(
		llmtest.Reply{ToolCalls: []llm.ToolCall{{ID: "w", Name: "write_file", Arguments: `{"path":"new.txt","content":"x"}`}}},
		llmtest.Reply{Text: "could not"},
		llmtest.Reply{ToolCalls: []llm.ToolCall{{ID: "r", Name: "terminal", Arguments: `{"command":"rm -rf build"}`}}},
		llmtest.Reply{Text: "done"},
	)
	id := f.newSession(t)
	if _, err := f.conn.SetSessionMode(context.Background(), sdk.SetSessionModeRequest{SessionId: id, ModeId: acp.ModeReadOnly}); err != nil {
		t.Fatal(err)
	}
	f.prompt(t, id, "write a file")
	if _, err := os.Stat(filepath.Join(f.cwd, "new.txt")); err == nil {
		t.Fatal("read-only mode wrote a file")
	}
	if _, err := f.conn.SetSessionMode(context.Background(), sdk.SetSessionModeRequest{SessionId: id, ModeId: acp.ModeYolo}); err != nil {
		t.Fatal(err)
	}
	f.prompt(t, id, "clean up")
	if len(f.ed.permissions) != 0 {
		t.Fatalf("yolo asked: %+v", f.ed.permissions)
	}
	if _, err := os.Stat(filepath.Join(f.cwd, "build")); !os.IsNotExist(err) {
		t.Fatalf("yolo did not run the command: %v", err)
	}
	if _, err := f.conn.SetSessionMode(context.Background(), sdk.SetSessionModeRequest{SessionId: id, ModeId: "godmode"}); err == nil {
		t.Fatal("an unknown mode was accepted")
	}
}

// session/load resumes a stored session in a new connection: its
// history is replayed, and the next prompt continues it.
func TestLoadReplaysAStoredSessionAndContinuesIt(t *testing.T) {
	srv := llmtest.NewServer(t)
	home := t.TempDir()
	first := connect(t, srv, home)
	srv.Enqueue(llmtest.Reply{Text: "Remembered: 42."}, llmtest.Reply{Text: "It was 42."})
	id := first.newSession(t)
	first.prompt(t, id, "remember 42")

	second := connect(t, srv, home)
	if _, err := second.conn.LoadSession(context.Background(), sdk.LoadSessionRequest{SessionId: id, Cwd: first.cwd, McpServers: []sdk.McpServer{}}); err != nil {
		t.Fatal(err)
	}
	var user, agentText string
	for _, u := range second.ed.updates {
		if u.UserMessageChunk != nil {
			user += u.UserMessageChunk.Content.Text.Text
		}
		if u.AgentMessageChunk != nil {
			agentText += u.AgentMessageChunk.Content.Text.Text
		}
	}
	if user != "remember 42" || agentText != "Remembered: 42." {
		t.Fatalf("replayed user %q agent %q", user, agentText)
	}
	second.prompt(t, id, "what was it?")
	if sent := srv.Requests()[1].Messages(); len(sent) != 4 || sent[1].Content != "remember 42" {
		t.Fatalf("the continued turn sent %+v", sent)
	}
	if _, err := second.conn.LoadSession(context.Background(), sdk.LoadSessionRequest{SessionId: "nope", Cwd: first.cwd, McpServers: []sdk.McpServer{}}); err == nil {
		t.Fatal("loading an unknown session succeeded")
	}
}

// BenchmarkCancelEndsTheTurn is the time from session/cancel, sent while
// the turn waits on a model call that never answers, to the prompt's
// cancelled answer, as the editor sees it (the issue asks for < 100 ms).
func BenchmarkCancelEndsTheTurn(b *testing.B) {
	srv := llmtest.NewServer(b)
	f := connect(b, srv, b.TempDir())
	id := f.newSession(b)
	var worst time.Duration
	for b.Loop() {
		srv.Enqueue(llmtest.Reply{Hang: true})
		stop := make(chan sdk.StopReason, 1)
		go func() { stop <- f.prompt(b, id, "take forever") }()
		<-srv.Hanging()
		start := time.Now()
		if err := f.conn.Cancel(context.Background(), sdk.CancelNotification{SessionId: id}); err != nil {
			b.Fatal(err)
		}
		if s := <-stop; s != sdk.StopReasonCancelled {
			b.Fatalf("stop %s", s)
		}
		worst = max(worst, time.Since(start))
	}
	b.ReportMetric(float64(worst.Microseconds())/1000, "ms-worst")
}

// A session keeps its workspace across prompts: a background process a
// turn started outlives the turn, as in the CLI.
func TestBackgroundProcessesOutliveTheirTurn(t *testing.T) {
	srv := llmtest.NewServer(t)
	f := connect(t, srv, t.TempDir())
	srv.Enqueue(
		llmtest.Reply{ToolCalls: []llm.ToolCall{{ID: "bg", Name: "terminal", Arguments: `{"command":"sleep 30","background":true}`}}},
		llmtest.Reply{Text: "started"},
		llmtest.Reply{Text: "still here"},
	)
	id := f.newSession(t)
	f.prompt(t, id, "start a sleeper")
	started := srv.Requests()[1].LastToolResult()
	var pid int
	if _, err := fmt.Sscanf(started[strings.Index(started, "(pid "):], "(pid %d)", &pid); err != nil {
		t.Fatalf("no pid in %q: %v", started, err)
	}
	f.prompt(t, id, "anything else?")
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil || strings.Contains(string(stat[strings.LastIndexByte(string(stat), ')'):]), ") Z") {
		t.Fatalf("the background process %d ended with its turn: %q %v", pid, stat, err)
	}
}
