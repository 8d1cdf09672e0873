package e2e

import (
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/hermes-go/hermes/llm"
	"github.com/hermes-go/hermes/llm/llmtest"
)

// threeRounds answers "task N" with three terminal commands, one per
// round, then the answer.
func threeRounds(delay time.Duration) func(*llmtest.Request) llmtest.Reply {
	return func(req *llmtest.Request) llmtest.Reply {
		n, rounds := batchState(req.Messages())
		if rounds < 3 {
			return llmtest.Reply{Delay: delay, ToolCalls: []llm.ToolCall{{ID: fmt.Sprintf("call_%d_%d", n, rounds), Name: "terminal",
				Arguments: fmt.Sprintf(`{"command":"echo %d-%d >> calls.log"}`, n, rounds)}}}
		}
		return llmtest.Reply{Delay: delay, Text: fmt.Sprintf("done %d", n)}
	}
}

// BenchmarkBatchLocal1000Prompts is the local engine's throughput: the
// real binary runs 1,000 prompts of three tool rounds each (four model
// calls of 100 ms latency, three sandboxed terminal commands), 64 at a
// time. One op is the whole batch; prompts/s is reported.
func BenchmarkBatchLocal1000Prompts(b *testing.B) {
	const prompts = 1000
	for range b.N {
		b.StopTimer()
		srv := llmtest.NewServer(b)
		srv.Handle(threeRounds(100 * time.Millisecond))
		root := b.TempDir()
		home, work := filepath.Join(root, "home"), filepath.Join(root, "work")
		mkdirs(b, home, work)
		ds := writeDatasetTB(b, work, prompts)
		cmd := batchCmd(home, work, "--dataset", ds, "--run-name", "bench", "--workers", "64",
			"--provider", "custom", "--base-url", srv.URL(), "--model", "m")
		b.StartTimer()
		start := time.Now()
		out, err := cmd.CombinedOutput()
		el := time.Since(start)
		b.StopTimer()
		if err != nil {
			b.Fatalf("%v\n%s", err, out[max(0, len(out)-2000):])
		}
		b.ReportMetric(prompts/el.Seconds(), "prompts/s")
		b.ReportMetric(el.Seconds(), "s/batch")
		srv.Close()
	}
}
