package tui

import (
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
	h.update(mcpPollMsg{})
	if l := line(); !strings.Contains(l, "MCP 0/2") || !strings.Contains(l, "broken down") {
		t.Fatalf("status line with a broken and a slow server: %q", l)
	}
	if err := os.WriteFile(gate, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	h.until("the slow server to join", func() bool {
		for _, st := range h.rt.MCPStatus() {
			if st.Name == "slow" && st.State == mcp.Ready {
				return true
			}
		}
		return false
	})
	h.update(mcpPollMsg{})
	if l := line(); !strings.Contains(l, "MCP 1/2") || !strings.Contains(l, "broken down") {
		t.Fatalf("status line after the slow server joined: %q", l)
	}
	if c := h.conversation(); !strings.Contains(c, "MCP server broken") {
		t.Fatalf("the down server was not named in the conversation:\n%s", c)
	}
}
