package app_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hermes-go/hermes/app"
	"github.com/hermes-go/hermes/llm"
	"github.com/hermes-go/hermes/llm/llmtest"
)

// scriptedTask is the replies of a model that reads twenty files and
// writes a summary: one call per reply (sequential), the twenty reads in
// one reply then the write (parallel), or one execute_code script.
func scriptedTask(mode string) []llmtest.Reply {
	call := func(id int, name string, args any) llm.ToolCall {
		b, _ := json.Marshal(args)
		return llm.ToolCall{ID: fmt.Sprintf("call_%d", id), Name: name, Arguments: string(b)}
	}
	write := call(99, "write_file", map[string]string{"path": "summary.txt", "content": "20 files, 800 lines\n"})
	var out []llmtest.Reply
	switch mode {
	case "sequential_calls":
		for i := range 20 {
			out = append(out, llmtest.Reply{ToolCalls: []llm.ToolCall{call(i, "read_file", map[string]string{"path": fmt.Sprintf("f%02d.txt", i)})}})
		}
		out = append(out, llmtest.Reply{ToolCalls: []llm.ToolCall{write}})
	case "parallel_calls":
		var reads []llm.ToolCall
		for i := range 20 {
			reads = append(reads, call(i, "read_file", map[string]string{"path": fmt.Sprintf("f%02d.txt", i)}))
		}
		out = append(out, llmtest.Reply{ToolCalls: reads}, llmtest.Reply{ToolCalls: []llm.ToolCall{write}})
	case "execute_code":
		script := `from hermes_tools import read_file, write_file
lines = 0
for i in range(20):
    lines += len(read_file(path="f%02d.txt" % i).splitlines())
write_file(path="summary.txt", content="20 files, %d lines\n" % lines)
print("wrote summary.txt:", lines, "lines")
`
		out = append(out, llmtest.Reply{ToolCalls: []llm.ToolCall{call(1, "execute_code", map[string]string{"code": script})}})
	}
	return append(out, llmtest.Reply{Text: "Wrote summary.txt."})
}

// BenchmarkTwentyReadsAndAWrite compares, for the same task, the model
// calls, the request bytes sent to the provider and the wall time of a
// turn that makes 21 plain tool calls with one that makes one
// execute_code call.
func BenchmarkTwentyReadsAndAWrite(b *testing.B) {
	if _, err := exec.LookPath("python3"); err != nil {
		b.Skip("python3 is not installed")
	}
	for _, mode := range []string{"sequential_calls", "parallel_calls", "execute_code"} {
		b.Run(mode, func(b *testing.B) {
			srv := llmtest.NewServer(b)
			work := b.TempDir()
			line := strings.Repeat("x", 48) + "\n"
			for i := range 20 {
				body := strings.Repeat(fmt.Sprintf("%02d ", i)+line, 40)
				if err := os.WriteFile(filepath.Join(work, fmt.Sprintf("f%02d.txt", i)), []byte(body), 0o644); err != nil {
					b.Fatal(err)
				}
			}
			rt := newRuntime(b, newConfig(b, srv.URL()), app.Options{Workdir: work})
			ctx := context.Background()
			var n, calls, sent int
			var wall time.Duration
			for b.Loop() {
				srv.Enqueue(scriptedTask(mode)...)
				before := len(srv.Requests())
				c, err := rt.Open(ctx, app.ConversationOptions{})
				if err != nil {
					b.Fatal(err)
				}
				start := time.Now()
				res, err := c.Chat(ctx, "Read f00.txt to f19.txt and write a summary to summary.txt.")
				wall += time.Since(start)
				if err != nil || !strings.Contains(res, "Wrote summary.txt") {
					b.Fatalf("turn: %v %q", err, res)
				}
				if s, err := os.ReadFile(filepath.Join(work, "summary.txt")); err != nil || !strings.HasPrefix(string(s), "20 files, ") {
					b.Fatalf("summary: %q %v", s, err)
				}
				for _, r := range srv.Requests()[before:] {
					calls++
					sent += len(r.Body)
				}
				n++
				c.Close()
			}
			b.ReportMetric(float64(calls)/float64(n), "model_calls/op")
			b.ReportMetric(float64(sent)/float64(n), "request_bytes/op")
			b.ReportMetric(float64(wall.Milliseconds())/float64(n), "turn_ms/op")
		})
	}
}
