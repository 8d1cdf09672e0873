package mcp

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/hermes-go/hermes/internal/testpeer"
	"github.com/hermes-go/hermes/tool"
)

var (
	serverOnce sync.Once
	serverBin  string
	serverErr  error
)

// serverBinary builds internal/mcptest/mcptest-server, the test server as
// a small program of its own.
func serverBinary(b *testing.B) string {
	serverOnce.Do(func() {
		dir, err := os.MkdirTemp("", "hermes-mcptest-")
		if err != nil {
			serverErr = err
			return
		}
		serverBin = filepath.Join(dir, "mcptest-server")
		cmd := exec.Command("go", "build", "-o", serverBin, "./internal/mcptest/mcptest-server")
		cmd.Dir = testpeer.Root()
		if out, err := cmd.CombinedOutput(); err != nil {
			serverErr = fmt.Errorf("go build: %v: %s", err, out)
		}
	})
	if serverErr != nil {
		b.Fatal(serverErr)
	}
	return serverBin
}

// BenchmarkStartServers starts n Go SDK servers at once and waits until
// all are ready: what the first prompt waits for.
func BenchmarkStartServers(b *testing.B) {
	bin := serverBinary(b)
	for _, n := range []int{1, 10} {
		b.Run(fmt.Sprintf("%d", n), func(b *testing.B) {
			var servers []Server
			for i := range n {
				servers = append(servers, Server{Name: fmt.Sprintf("s%d", i), Command: bin})
			}
			var ready time.Duration
			for b.Loop() {
				m, err := New(Options{Registry: &tool.Registry{}}, servers)
				if err != nil {
					b.Fatal(err)
				}
				start := time.Now()
				m.Start()
				if late := m.WaitStarted(context.Background(), time.Minute); late != nil {
					b.Fatal(late)
				}
				ready += time.Since(start)
				m.Close()
			}
			b.ReportMetric(float64(ready.Microseconds())/float64(b.N)/1000, "ms-ready")
		})
	}
}
