package mcp

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/hermes-go/hermes/internal/mcptest"
	"github.com/hermes-go/hermes/tool"
)

// BenchmarkStartServers starts n Go SDK servers at once and waits until
// all are ready: what the first prompt waits for.
func BenchmarkStartServers(b *testing.B) {
	bin := mcptest.Binary(b)
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
