package acp_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	sdk "github.com/coder/acp-go-sdk"
	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hermes-go/hermes/internal/mcptest"
	"github.com/hermes-go/hermes/llm"
	"github.com/hermes-go/hermes/llm/llmtest"
)

// testServer is internal/mcptest's server as an editor passes it, its
// pid written to pidfile.
func testServer(t testing.TB, name, pidfile string, env ...sdk.EnvVariable) sdk.McpServer {
	env = append(env, sdk.EnvVariable{Name: "HERMES_MCPTEST_PIDFILE", Value: pidfile}, sdk.EnvVariable{Name: "GORACE", Value: "atexit_sleep_ms=0"})
	return sdk.McpServer{Stdio: &sdk.McpServerStdio{Name: name, Command: mcptest.Binary(t), Args: []string{}, Env: env}}
}

func (f *fixture) openWith(t testing.TB, servers ...sdk.McpServer) sdk.SessionId {
	t.Helper()
	s, err := f.conn.NewSession(context.Background(), sdk.NewSessionRequest{Cwd: f.cwd, McpServers: servers})
	if err != nil {
		t.Fatal(err)
	}
	return s.SessionId
}

func offered(r *llmtest.Request) []string {
	var out []string
	for _, d := range r.Tools() {
		out = append(out, d.Name)
	}
	return out
}

// pidOf reads the pid a test server wrote.
func pidOf(t testing.TB, pidfile string) int {
	t.Helper()
	b, err := os.ReadFile(pidfile)
	if err != nil {
		t.Fatalf("the MCP server did not start: %v", err)
	}
	pid, err := strconv.Atoi(string(b))
	if err != nil {
		t.Fatal(err)
	}
	return pid
}

// gone reports whether pid has exited (and was reaped, or is a zombie).
func gone(pid int) bool {
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return true
	}
	s := string(stat)
	return strings.HasPrefix(s[strings.LastIndexByte(s, ')'):], ") Z") || syscall.Kill(pid, 0) != nil
}

// waitGone waits, up to a bound, for pid to exit: a stopped server
// is killed and waited for, but its sandbox helper may reap it a moment
// later.
func waitGone(t testing.TB, pid int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !gone(pid) {
		if time.Now().After(deadline) {
			t.Fatalf("MCP server process %d still runs", pid)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// An MCP server the editor passes in session/new serves that session
// only: the model calls its tool and the result comes back as the tool
// call's update; another session is not offered it; closing the session
// ends the server's process.
func TestEditorMCPServersServeTheirSessionOnly(t *testing.T) {
	srv := llmtest.NewServer(t)
	f := connect(t, srv, t.TempDir())
	pidfile := filepath.Join(f.cwd, "ed.pid")
	srv.Enqueue(
		llmtest.Reply{ToolCalls: []llm.ToolCall{{ID: "call_echo", Name: "mcp__ed__echo", Arguments: `{"message":"from the editor"}`}}},
		llmtest.Reply{Text: "It echoed."},
		llmtest.Reply{Text: "No such tool here."},
	)
	with := f.openWith(t, testServer(t, "ed", pidfile))
	if stop := f.prompt(t, with, "echo something"); stop != sdk.StopReasonEndTurn {
		t.Fatalf("stop %s", stop)
	}
	if got := offered(srv.Requests()[0]); !slices.Contains(got, "mcp__ed__echo") || !slices.Contains(got, "read_file") {
		t.Fatalf("the session with the server was offered %v", got)
	}
	var started *sdk.SessionUpdateToolCall
	var finished *sdk.SessionToolCallUpdate
	for _, u := range f.ed.snapshot() {
		if u.ToolCall != nil && u.ToolCall.ToolCallId == "call_echo" {
			started = u.ToolCall
		}
		if u.ToolCallUpdate != nil && u.ToolCallUpdate.ToolCallId == "call_echo" {
			finished = u.ToolCallUpdate
		}
	}
	if started == nil || started.Title != "mcp__ed__echo" {
		t.Fatalf("tool call %+v", started)
	}
	if finished == nil || *finished.Status != sdk.ToolCallStatusCompleted || len(finished.Content) != 1 ||
		finished.Content[0].Content == nil || !strings.Contains(finished.Content[0].Content.Content.Text.Text, "Echo: from the editor") {
		t.Fatalf("tool call update %+v", finished)
	}
	if got := srv.Requests()[1].LastToolResult(); !strings.Contains(got, "Echo: from the editor") {
		t.Fatalf("the model read %q", got)
	}

	without := f.newSession(t)
	f.prompt(t, without, "echo again")
	if got := offered(srv.Requests()[2]); slices.ContainsFunc(got, func(n string) bool { return strings.HasPrefix(n, "mcp__ed__") }) {
		t.Fatalf("a session without the server was offered %v", got)
	}

	pid := pidOf(t, pidfile)
	if gone(pid) {
		t.Fatal("the server is not running while its session is open")
	}
	if _, err := f.conn.CloseSession(context.Background(), sdk.CloseSessionRequest{SessionId: with}); err != nil {
		t.Fatal(err)
	}
	waitGone(t, pid)
}

// A server that cannot start does not fail silently: the editor reads
// which one and why, the session opens and works, and the model is
// offered none of its tools. Closing the connection stops the servers
// of every session.
func TestABadEditorMCPServerIsToldAndTheSessionWorks(t *testing.T) {
	srv := llmtest.NewServer(t)
	f := connect(t, srv, t.TempDir())
	pidfile := filepath.Join(f.cwd, "good.pid")
	srv.Enqueue(llmtest.Reply{Text: "Working anyway."})
	id := f.openWith(t,
		sdk.McpServer{Stdio: &sdk.McpServerStdio{Name: "missing", Command: filepath.Join(f.cwd, "no-such-server"), Args: []string{}, Env: []sdk.EnvVariable{}}},
		testServer(t, "exits", filepath.Join(f.cwd, "exits.pid"), sdk.EnvVariable{Name: "HERMES_MCPTEST_EXIT", Value: "3"}),
		testServer(t, "good", pidfile),
		sdk.McpServer{Acp: &sdk.McpServerAcpInline{Name: "inproc", Id: "x", Type: "acp"}},
	)
	text := f.ed.waitText(t, "exits failed to start")
	for _, want := range []string{
		"MCP server missing failed to start", "no-such-server",
		"MCP server exits failed to start", "failing on purpose",
		"MCP server inproc was not started",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("the editor was not told %q; it read:\n%s", want, text)
		}
	}
	if strings.Contains(text, "good") {
		t.Errorf("the good server was reported: %s", text)
	}
	if stop := f.prompt(t, id, "hello"); stop != sdk.StopReasonEndTurn || !strings.HasSuffix(f.ed.text(), "Working anyway.") {
		t.Fatalf("stop %s, text %q", stop, f.ed.text())
	}
	got := offered(srv.Requests()[0])
	if !slices.Contains(got, "mcp__good__echo") || slices.ContainsFunc(got, func(n string) bool {
		return strings.HasPrefix(n, "mcp__missing__") || strings.HasPrefix(n, "mcp__exits__")
	}) {
		t.Fatalf("offered %v", got)
	}
	pid := pidOf(t, pidfile)
	f.close()
	waitGone(t, pid)
}

// session/list answers the stored sessions, most recently active first,
// with their directory and title; a cwd keeps only those that ran there.
func TestSessionListAnswersTheStoredSessions(t *testing.T) {
	srv := llmtest.NewServer(t)
	f := connect(t, srv, t.TempDir())
	init, err := f.conn.Initialize(context.Background(), sdk.InitializeRequest{ProtocolVersion: sdk.ProtocolVersionNumber})
	if err != nil || init.AgentCapabilities.SessionCapabilities.List == nil || !init.AgentCapabilities.McpCapabilities.Http || !init.AgentCapabilities.McpCapabilities.Sse {
		t.Fatalf("capabilities %+v err %v", init.AgentCapabilities, err)
	}
	srv.Enqueue(llmtest.Reply{Text: "one"}, llmtest.Reply{Text: "two"})
	first := f.newSession(t)
	f.prompt(t, first, "the first conversation")
	other := t.TempDir()
	s, err := f.conn.NewSession(context.Background(), sdk.NewSessionRequest{Cwd: other, McpServers: []sdk.McpServer{}})
	if err != nil {
		t.Fatal(err)
	}
	f.prompt(t, s.SessionId, "the second conversation")

	list, err := f.conn.ListSessions(context.Background(), sdk.ListSessionsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if len(list.Sessions) != 2 || list.NextCursor != nil {
		t.Fatalf("listed %+v", list)
	}
	second := list.Sessions[0]
	if second.SessionId != s.SessionId || second.Cwd != other || second.Title == nil || *second.Title != "the second conversation" || second.UpdatedAt == nil {
		t.Fatalf("first listed %+v", second)
	}
	if _, err := time.Parse(time.RFC3339, *second.UpdatedAt); err != nil {
		t.Fatalf("updatedAt %q: %v", *second.UpdatedAt, err)
	}
	if list.Sessions[1].SessionId != first || list.Sessions[1].Cwd != f.cwd {
		t.Fatalf("second listed %+v", list.Sessions[1])
	}
	here, err := f.conn.ListSessions(context.Background(), sdk.ListSessionsRequest{Cwd: &f.cwd})
	if err != nil || len(here.Sessions) != 1 || here.Sessions[0].SessionId != first {
		t.Fatalf("listed in %s: %+v err %v", f.cwd, here, err)
	}
}

// An http server the editor passes, with its headers, serves the
// session like a stdio one.
func TestEditorHTTPMCPServerWithHeaders(t *testing.T) {
	mcpSrv := mcptest.NewServer(mcptest.Options{})
	h := mcpsdk.NewStreamableHTTPHandler(func(*http.Request) *mcpsdk.Server { return mcpSrv }, nil)
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer s3cret" {
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(hs.Close) // after the connection's close (cleanups run last first): its event stream holds a request open
	srv := llmtest.NewServer(t)
	f := connect(t, srv, t.TempDir())
	srv.Enqueue(
		llmtest.Reply{ToolCalls: []llm.ToolCall{{ID: "call_web", Name: "mcp__web__echo", Arguments: `{"message":"over http"}`}}},
		llmtest.Reply{Text: "ok"},
	)
	id := f.openWith(t,
		sdk.McpServer{Http: &sdk.McpServerHttpInline{Name: "web", Type: "http", Url: hs.URL, Headers: []sdk.HttpHeader{{Name: "Authorization", Value: "Bearer s3cret"}}}},
		sdk.McpServer{Sse: &sdk.McpServerSseInline{Name: "nokey", Type: "sse", Url: hs.URL, Headers: []sdk.HttpHeader{}}},
	)
	f.ed.waitText(t, "MCP server nokey failed to start")
	f.prompt(t, id, "echo over http")
	if got := srv.Requests()[1].LastToolResult(); got != "Echo: over http" {
		t.Fatalf("the model read %q", got)
	}
}
