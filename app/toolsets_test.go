package app

import (
	"context"
	"slices"
	"testing"

	"github.com/hermes-go/hermes/config"
)

// Every toolset listed is one a runtime accepts, and the usual ones are
// listed.
func TestListedToolsetsAreAccepted(t *testing.T) {
	cfg := config.Default()
	cfg.Home = t.TempDir()
	cfg.Provider, cfg.BaseURL, cfg.Model.Name = "custom", "http://127.0.0.1:9/v1", "m"
	cfg.MCPServers = map[string]config.MCPServer{"docs": {Command: "/nonexistent/mcp-server"}}
	names := Toolsets(cfg)
	for _, want := range []string{"terminal", "file", "memory", "web", "mcp", "mcp-docs"} {
		if !slices.Contains(names, want) {
			t.Errorf("%q missing from %v", want, names)
		}
	}
	cfg.Toolsets = names
	rt, err := New(context.Background(), cfg, Options{Getenv: func(string) string { return "" }, OnWarning: func(string) {}})
	if err != nil {
		t.Fatalf("toolsets %v refused: %v", cfg.Toolsets, err)
	}
	rt.Close()
}
