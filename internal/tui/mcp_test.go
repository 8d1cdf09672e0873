package tui

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hermes-go/hermes/config"
	"github.com/hermes-go/hermes/internal/mcptest"
	"github.com/hermes-go/hermes/llm/llmtest"
	"github.com/hermes-go/hermes/mcp"
)

// The status line says how the MCP servers are, and follows them as they
// change in the background: a server that fails is marked down, a slow
// one that joins later turns the count up.
func TestStatusLineFollowsTheMCPServers(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	gate := filepath.Join(t.TempDir(), "go")
	server := func(env map[string]string) config.MCPServer {
		all := map[string]string{mcptest.ServeEnv: "1", "GORACE": "atexit_sleep_ms=0"}
		for k, v := range env {
			all[k] = v
		}
		return config.MCPServer{Command: exe, Env: all, Trusted: true}
	}
	h := newHarness(t, llmtest.NewServer(t), setup{cfg: func(c *config.Config) {
		c.MCPStartupTimeout = 1
		c.MCPServers = map[string]config.MCPServer{
			"broken": server(map[string]string{"HERMES_MCPTEST_EXIT": "3"}),
			"slow":   server(map[string]string{"HERMES_MCPTEST_WAITFILE": gate}),
		}
	}})
	line := func() string { s := strings.Split(h.screen(), "\n"); return s[len(s)-1] }
	state := func(name string, want mcp.State) func() bool {
		return func() bool {
			for _, st := range h.rt.MCPStatus() {
				if st.Name == name && st.State == want {
					return true
				}
			}
			return false
		}
	}
	// The servers start in the background: the broken one is down once
	// its process has exited.
	h.until("the broken server to go down", state("broken", mcp.Down))
	h.update(mcpPollMsg{})
	if l := line(); !strings.Contains(l, "MCP 0/2") || !strings.Contains(l, "broken down") {
		t.Fatalf("status line with a broken and a slow server: %q", l)
	}
	if err := os.WriteFile(gate, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	h.until("the slow server to join", state("slow", mcp.Ready))
	h.update(mcpPollMsg{})
	if l := line(); !strings.Contains(l, "MCP 1/2") || !strings.Contains(l, "broken down") {
		t.Fatalf("status line after the slow server joined: %q", l)
	}
	if c := h.conversation(); !strings.Contains(c, "MCP server broken") {
		t.Fatalf("the down server was not named in the conversation:\n%s", c)
	}
}

// With no server at start, the UI still looks: /reload-mcp may add the
// first, and the status line then counts it.
func TestStatusLineShowsAServerAddedByAReload(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	h := newHarness(t, llmtest.NewServer(t), setup{})
	if h.m.pollMCP() == nil {
		t.Fatal("no look at the MCP servers is scheduled when none is configured yet")
	}
	cfg := "mcp_servers:\n  added:\n    command: " + exe + "\n    trusted: true\n    env:\n      " + mcptest.ServeEnv + ": \"1\"\n      GORACE: atexit_sleep_ms=0\n"
	if err := os.WriteFile(filepath.Join(h.rt.Config().Home, "config.yaml"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := h.rt.ReloadMCP(context.Background()); err != nil {
		t.Fatal(err)
	}
	h.update(mcpPollMsg{})
	s := strings.Split(h.screen(), "\n")
	if l := s[len(s)-1]; !strings.Contains(l, "MCP 1/1") {
		t.Fatalf("status line after the reload: %q", l)
	}
}
