package app_test

import (
	"context"
	"fmt"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hermes-go/hermes/agent"
	"github.com/hermes-go/hermes/app"
	"github.com/hermes-go/hermes/config"
	"github.com/hermes-go/hermes/internal/mcptest"
	"github.com/hermes-go/hermes/internal/testpeer"
	"github.com/hermes-go/hermes/llm/llmtest"
)

// benchStartup measures a session's start with servers configured: New
// (which starts them and does not wait) and the time until the first
// model request arrives (the first turn waits for the servers to be
// ready). One op is New, Open, one turn answered at once, and Close.
func benchStartup(b *testing.B, servers map[string]config.MCPServer) {
	srv := llmtest.NewServer(b)
	var first atomic.Int64
	srv.Handle(func(*llmtest.Request) llmtest.Reply {
		first.CompareAndSwap(0, time.Now().UnixNano())
		return llmtest.Reply{Text: "ok"}
	})
	var assembly, toPrompt time.Duration
	for b.Loop() {
		cfg := config.Default()
		cfg.Home = b.TempDir()
		cfg.Provider, cfg.BaseURL, cfg.APIKey, cfg.Model.Name = "custom", srv.URL(), "sk-test", "m"
		cfg.MCPServers = servers
		first.Store(0)
		start := time.Now()
		rt, err := app.New(context.Background(), cfg, app.Options{Workdir: b.TempDir(), Getenv: func(string) string { return "" }})
		if err != nil {
			b.Fatal(err)
		}
		assembly += time.Since(start)
		c, err := rt.Open(context.Background(), app.ConversationOptions{})
		if err != nil {
			b.Fatal(err)
		}
		if _, err := c.Run(context.Background(), agent.Input{Message: "hi"}); err != nil {
			b.Fatal(err)
		}
		toPrompt += time.Duration(first.Load() - start.UnixNano())
		for _, s := range rt.MCPStatus() {
			if s.Tools == 0 {
				b.Fatalf("%s has no tools at the first prompt: %v", s.Name, s)
			}
		}
		rt.Close()
	}
	b.ReportMetric(float64(assembly.Microseconds())/float64(b.N)/1000, "ms-new")
	b.ReportMetric(float64(toPrompt.Microseconds())/float64(b.N)/1000, "ms-to-first-prompt")
}

func tenGoServers(b *testing.B, trusted bool) map[string]config.MCPServer {
	bin := mcptest.Binary(b)
	out := map[string]config.MCPServer{}
	for i := range 10 {
		out[fmt.Sprintf("go%d", i)] = config.MCPServer{Command: bin, Trusted: trusted}
	}
	return out
}

// No servers: the baseline the others add to.
func BenchmarkStartupNoMCPServers(b *testing.B) { benchStartup(b, nil) }

// Ten MCP servers built on the Go SDK (internal/mcptest/mcptest-server),
// each sandboxed as a session runs them (the sandbox helper here is this
// test binary, larger than hermes).
func BenchmarkStartupTenGoMCPServersSandboxed(b *testing.B) { benchStartup(b, tenGoServers(b, false)) }

// The same ten servers, trusted (not sandboxed).
func BenchmarkStartupTenGoMCPServersTrusted(b *testing.B) { benchStartup(b, tenGoServers(b, true)) }

// Ten copies of the npm server-everything (node): node's own start-up
// dominates.
func BenchmarkStartupTenServerEverything(b *testing.B) {
	modules, node := testpeer.Node(b, "mcp")
	script := filepath.Join(modules, "@modelcontextprotocol", "server-everything", "dist", "index.js")
	out := map[string]config.MCPServer{}
	for i := range 10 {
		out[fmt.Sprintf("everything%d", i)] = config.MCPServer{Command: node, Args: []string{script, "stdio"}}
	}
	benchStartup(b, out)
}
