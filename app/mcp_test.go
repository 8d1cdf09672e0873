package app_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hermes-go/hermes/agent"
	"github.com/hermes-go/hermes/app"
	"github.com/hermes-go/hermes/config"
	"github.com/hermes-go/hermes/internal/mcptest"
	"github.com/hermes-go/hermes/llm"
	"github.com/hermes-go/hermes/llm/llmtest"
	"github.com/hermes-go/hermes/mcp"
)

// testMCP is this test binary as an MCP server (internal/mcptest).
func testMCP(t testing.TB, env map[string]string) config.MCPServer {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	all := map[string]string{mcptest.ServeEnv: "1", "GORACE": "atexit_sleep_ms=0"}
	for k, v := range env {
		all[k] = v
	}
	return config.MCPServer{Command: exe, Env: all}
}

func toolResults(r *llmtest.Request) map[string]string {
	out := map[string]string{}
	for _, m := range r.Messages() {
		if m.Role == llm.RoleTool {
			out[m.ToolCallID] = m.Content
		}
	}
	return out
}

// MCP tools run through the executor of every tool: pre_tool_call hooks
// can block them and their results are masked like any other.
func TestMCPToolsGoThroughHooksAndRedaction(t *testing.T) {
	srv := llmtest.NewServer(t)
	srv.Enqueue(
		llmtest.Reply{ToolCalls: []llm.ToolCall{
			{ID: "echo", Name: "mcp__t__echo", Arguments: `{"message":"token ` + dotEnvSecret + `"}`},
			{ID: "sum", Name: "mcp__t__add_numbers", Arguments: `{"a":1,"b":2}`},
		}},
		llmtest.Reply{Text: "done"},
	)
	cfg := newConfig(t, srv.URL())
	writeFile(t, filepath.Join(cfg.Home, ".env"), "MY_SERVICE_TOKEN="+dotEnvSecret+"\n")
	cfg.MCPServers = map[string]config.MCPServer{"t": testMCP(t, nil)}
	cfg.Hooks.PreToolCall = []config.ShellHook{{Matcher: "mcp__t__add.*", Command: "echo no sums today >&2; exit 2"}}
	rt := newRuntime(t, cfg, app.Options{})
	res, err := open(t, rt, app.ConversationOptions{}).Run(context.Background(), agent.Input{Message: "go"})
	if err != nil || !res.Completed {
		t.Fatalf("res %+v err %v", res, err)
	}
	offered := names(srv.Requests()[0].Tools())
	if !slices.Contains(offered, "mcp__t__echo") || !slices.Contains(offered, "skill_manage") {
		t.Fatalf("offered %v", offered)
	}
	got := toolResults(srv.Requests()[1])
	if !strings.HasPrefix(got["echo"], "Echo: token ") || strings.Contains(got["echo"], dotEnvSecret) {
		t.Fatalf("echo result %q: the secret must be masked", got["echo"])
	}
	if !strings.Contains(got["sum"], "Blocked") || !strings.Contains(got["sum"], "no sums today") {
		t.Fatalf("sum result %q: the hook must block it", got["sum"])
	}
	if st := rt.MCPStatus(); len(st) != 1 || st[0].State != mcp.Ready || rt.MCPStatusLine() != "MCP 1/1" {
		t.Fatalf("status %+v %q", st, rt.MCPStatusLine())
	}
}

// A server still starting when the first turn begins does not hold it
// past mcp_startup_timeout; it is reported, and once ready its tools are
// offered from the next model call.
func TestALateMCPServerJoinsFromTheNextModelCall(t *testing.T) {
	srv := llmtest.NewServer(t)
	work := t.TempDir()
	gate := filepath.Join(work, "gate")
	cfg := newConfig(t, srv.URL())
	cfg.MCPStartupTimeout = 1
	cfg.MCPServers = map[string]config.MCPServer{"slow": testMCP(t, map[string]string{"HERMES_MCPTEST_WAITFILE": gate})}
	var warnings []string
	var rt *app.Runtime
	srv.Enqueue(llmtest.Reply{ToolCalls: []llm.ToolCall{{ID: "open", Name: "terminal", Arguments: `{"command":"touch gate"}`}}})
	srv.Handle(func(r *llmtest.Request) llmtest.Reply {
		switch r.Index {
		case 1:
			deadline := time.Now().Add(20 * time.Second)
			for rt.MCPStatus()[0].State != mcp.Ready && time.Now().Before(deadline) {
				time.Sleep(5 * time.Millisecond)
			}
			return llmtest.Reply{ToolCalls: []llm.ToolCall{{ID: "late", Name: "mcp__slow__echo", Arguments: `{"message":"joined"}`}}}
		}
		return llmtest.Reply{Text: "done"}
	})
	rt = newRuntime(t, cfg, app.Options{Workdir: work, OnWarning: func(s string) { warnings = append(warnings, s) }})
	res, err := open(t, rt, app.ConversationOptions{}).Run(context.Background(), agent.Input{Message: "go"})
	if err != nil || !res.Completed {
		t.Fatalf("res %+v err %v", res, err)
	}
	reqs := srv.Requests()
	if slices.Contains(names(reqs[0].Tools()), "mcp__slow__echo") {
		t.Fatal("the slow server cannot have been offered before it started")
	}
	if got := toolResults(reqs[2])["late"]; got != "Echo: joined" {
		t.Fatalf("late call: %q", got)
	}
	if !slices.Contains(names(reqs[2].Tools()), "mcp__slow__echo") {
		t.Fatalf("the joined server's tools must be offered: %v", names(reqs[2].Tools()))
	}
	joined := strings.Join(rt.Warnings(), "\n")
	if !strings.Contains(joined, "MCP server slow is still starting after 1s") || !strings.Contains(joined, "MCP server slow is ready") {
		t.Fatalf("warnings %q", rt.Warnings())
	}
}

func TestMCPSettingsExpandVariablesAndAMissingOneIsTheServersError(t *testing.T) {
	cfg := config.Default()
	cfg.Home = t.TempDir()
	cfg.MCPServers = map[string]config.MCPServer{
		"gh":  {URL: "https://${HOST}/mcp", Headers: map[string]string{"Authorization": "Bearer ${env:GH_TOKEN}"}},
		"loc": {Command: "${workspaceFolder}/bin/server", Args: []string{"--home", "${userHome}"}, Env: map[string]string{"K": "${MISSING}"}},
		"off": {Command: "x", Enabled: new(bool)},
	}
	env := map[string]string{"HOST": "example.test", "GH_TOKEN": "t0k", "HOME": "/home/u"}
	list := app.MCPServers(cfg, "/work", func(k string) string { return env[k] })
	if len(list) != 2 || list[0].Name != "gh" || list[1].Name != "loc" {
		t.Fatalf("servers %+v", list)
	}
	gh, loc := list[0], list[1]
	if gh.URL != "https://example.test/mcp" || gh.Headers["Authorization"] != "Bearer t0k" || gh.Invalid != "" || gh.Transport != "http" {
		t.Fatalf("gh %+v", gh)
	}
	if loc.Command != "/work/bin/server" || !slices.Equal(loc.Args, []string{"--home", "/home/u"}) || !strings.Contains(loc.Invalid, "${MISSING}") {
		t.Fatalf("loc %+v", loc)
	}
	cfg.Toolsets = []string{"terminal", "mcp-loc"}
	if list := app.MCPServers(cfg, "/work", func(k string) string { return env[k] }); len(list) != 1 || list[0].Name != "loc" {
		t.Fatalf("toolsets select servers: %+v", list)
	}
}

func TestReloadMCPReadsTheConfigAgain(t *testing.T) {
	srv := llmtest.NewServer(t)
	cfg := newConfig(t, srv.URL())
	rt := newRuntime(t, cfg, app.Options{})
	if len(rt.MCPStatus()) != 0 {
		t.Fatal("no servers yet")
	}
	exe, _ := os.Executable()
	writeFile(t, filepath.Join(cfg.Home, "config.yaml"), "mcp_servers:\n  added:\n    command: "+exe+"\n    env:\n      "+mcptest.ServeEnv+": \"1\"\n      GORACE: atexit_sleep_ms=0\n")
	if err := rt.ReloadMCP(context.Background()); err != nil {
		t.Fatal(err)
	}
	if st := rt.MCPStatus(); len(st) != 1 || st[0].Name != "added" || st[0].State != mcp.Ready || st[0].Tools == 0 {
		t.Fatalf("status %+v", st)
	}
}
