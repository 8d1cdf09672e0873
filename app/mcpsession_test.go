package app_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hermes-go/hermes/agent"
	"github.com/hermes-go/hermes/app"
	"github.com/hermes-go/hermes/config"
	"github.com/hermes-go/hermes/internal/mcptest"
	"github.com/hermes-go/hermes/llm"
	"github.com/hermes-go/hermes/llm/llmtest"
	"github.com/hermes-go/hermes/mcp"
)

// sessionServer is this test binary as an MCP server a conversation
// brings, with extra env.
func sessionServer(t *testing.T, name string, env ...string) mcp.Server {
	t.Helper()
	s := testMCP(t, nil)
	out := mcp.Server{Name: name, Command: s.Command, Env: []string{mcptest.ServeEnv + "=1", "GORACE=atexit_sleep_ms=0"}}
	out.Env = append(out.Env, env...)
	return out
}

// run runs one turn in a conversation of its own, closed after it.
func run(t *testing.T, rt *app.Runtime, o app.ConversationOptions, msg string) {
	t.Helper()
	c, err := rt.Open(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if res, err := c.Run(context.Background(), agent.Input{Message: msg}); err != nil || !res.Completed {
		t.Fatalf("res %+v err %v", res, err)
	}
}

// Servers a session brings are offered only to the conversations opened
// with them, in place of a configured server of the same name; after
// Close they are gone.
func TestSessionMCPServesItsConversationOnly(t *testing.T) {
	srv := llmtest.NewServer(t)
	cfg := newConfig(t, srv.URL())
	cfg.MCPServers = map[string]config.MCPServer{
		"t":    testMCP(t, map[string]string{"HERMES_MCPTEST_EXTRA": "configured_only"}),
		"keep": testMCP(t, nil),
	}
	rt := newRuntime(t, cfg, app.Options{})
	var warnings []string
	set, err := rt.StartSessionMCP("", []mcp.Server{
		sessionServer(t, "t", "HERMES_MCPTEST_EXTRA=session_only"),
		sessionServer(t, "t"),
		sessionServer(t, ""),
	}, func(s string) { warnings = append(warnings, s) })
	if err != nil {
		t.Fatal(err)
	}
	srv.Enqueue(llmtest.Reply{Text: "a"}, llmtest.Reply{Text: "b"}, llmtest.Reply{Text: "c"})
	run(t, rt, app.ConversationOptions{MCP: set}, "with")
	run(t, rt, app.ConversationOptions{}, "without")
	with, without := names(srv.Requests()[0].Tools()), names(srv.Requests()[1].Tools())
	if !slices.Contains(with, "mcp__t__session_only") || slices.Contains(with, "mcp__t__configured_only") || !slices.Contains(with, "mcp__keep__echo") {
		t.Fatalf("the conversation with its servers was offered %v", with)
	}
	if slices.Contains(without, "mcp__t__session_only") || !slices.Contains(without, "mcp__t__configured_only") {
		t.Fatalf("another conversation was offered %v", without)
	}
	if w := strings.Join(warnings, "\n"); !strings.Contains(w, "MCP server t was passed twice") || !strings.Contains(w, "without a name") {
		t.Fatalf("warnings %q", w)
	}
	if st := set.Status(); len(st) != 1 || st[0].State != mcp.Ready {
		t.Fatalf("status %+v", st)
	}
	set.Close()
	run(t, rt, app.ConversationOptions{MCP: set}, "closed")
	if got := names(srv.Requests()[2].Tools()); slices.Contains(got, "mcp__t__session_only") || slices.Contains(got, "mcp__t__configured_only") {
		t.Fatalf("after Close the conversation was offered %v", got)
	}
}

// A conversation's servers run under the sandbox of configured ones: a
// write inside the workspace works, one outside it is refused.
func TestSessionMCPServersAreSandboxed(t *testing.T) {
	outside, err := os.MkdirTemp("/var/tmp", "hermes-app-")
	if err != nil {
		t.Skipf("no directory outside /tmp: %v", err)
	}
	t.Cleanup(func() { os.RemoveAll(outside) })
	srv := llmtest.NewServer(t)
	cfg := newConfig(t, srv.URL())
	work := filepath.Join(outside, "work")
	os.MkdirAll(work, 0o755)
	rt := newRuntime(t, cfg, app.Options{Workdir: t.TempDir()})
	set, err := rt.StartSessionMCP(work, []mcp.Server{sessionServer(t, "w")}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer set.Close()
	inside, victim := filepath.Join(work, "ok.txt"), filepath.Join(outside, "victim.txt")
	srv.Enqueue(
		llmtest.Reply{ToolCalls: []llm.ToolCall{
			{ID: "in", Name: "mcp__w__write_file", Arguments: `{"path":"` + inside + `","text":"fine"}`},
			{ID: "out", Name: "mcp__w__write_file", Arguments: `{"path":"` + victim + `","text":"owned"}`},
		}},
		llmtest.Reply{Text: "done"},
	)
	run(t, rt, app.ConversationOptions{Workdir: work, MCP: set}, "write")
	if b, err := os.ReadFile(inside); err != nil || string(b) != "fine" {
		t.Fatalf("the write inside the workspace: %q %v (results %v)", b, err, toolResults(srv.Requests()[1]))
	}
	if _, err := os.Stat(victim); !os.IsNotExist(err) {
		t.Fatalf("the server wrote outside its workspace: %v", err)
	}
}
