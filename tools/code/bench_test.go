package code

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/hermes-go/hermes/tool"
)

// BenchmarkScriptStartAndFirstToolCall is the cost of a script that makes
// one tool call: the run's directory, module and socket, python3 started
// in the sandbox, hermes_tools imported, one read_file answered. The
// first_call_ms metric is the time from the call of execute_code to the
// script's first tool call reaching hermes.
func BenchmarkScriptStartAndFirstToolCall(b *testing.B) {
	bx := newBox(b, boxOptions{})
	bx.write(b, "a.txt", "hello\n")
	var first time.Time
	bx.exec.Pre = []tool.PreHook{func(ctx context.Context, c *tool.Call) (string, error) {
		if c.Name == "read_file" && first.IsZero() {
			first = time.Now()
		}
		return "", nil
	}}
	args, _ := json.Marshal(map[string]string{"code": "from hermes_tools import read_file\nprint(read_file(path='a.txt'))\n"})
	var toFirst time.Duration
	n := 0
	for b.Loop() {
		first = time.Time{}
		start := time.Now()
		o := bx.exec.Run(context.Background(), tool.Call{ID: "c", Name: "execute_code", Args: args, TaskID: "task"})
		if o.Result.IsError || !strings.Contains(o.Result.Content, "hello") {
			b.Fatalf("run: %s", o.Result.Content)
		}
		toFirst += first.Sub(start)
		n++
	}
	b.ReportMetric(float64(toFirst.Microseconds())/1000/float64(n), "first_call_ms")
}
