package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hermes-go/hermes/agent"
	"github.com/hermes-go/hermes/llm"
	"github.com/hermes-go/hermes/llm/llmtest"
	"github.com/hermes-go/hermes/llm/openai"
	"github.com/hermes-go/hermes/session"
	"github.com/hermes-go/hermes/tool"
)

// BenchmarkLoopOverheadPerToolRound measures one tool round of the loop
// (model call over loopback with streamed SSE, decoding, tool dispatch,
// appending) with a model that answers at once and a tool that does
// nothing: the time is the loop's own. One op is one turn of one tool
// round plus the final answer call, from a fresh history.
func BenchmarkLoopOverheadPerToolRound(b *testing.B) {
	srv := llmtest.NewServer(b)
	srv.Handle(func(r *llmtest.Request) llmtest.Reply {
		msgs := r.Messages()
		if msgs[len(msgs)-1].Role == llm.RoleTool {
			return llmtest.Reply{Text: "done"}
		}
		return llmtest.Reply{ToolCalls: []llm.ToolCall{{Name: "noop", Arguments: `{"n":1}`}}}
	})
	noop := tool.Func{S: tool.Spec{Name: "noop", Parameters: json.RawMessage(`{"type":"object","properties":{"n":{"type":"integer"}}}`)},
		Fn: func(context.Context, tool.Call) (tool.Result, error) { return tool.Text("ok"), nil }}
	a := agent.New(agent.Config{Client: openai.NewChat(llm.Options{BaseURL: srv.URL(), APIKey: "k"}), Model: "m",
		Tools: tool.NewRegistry(noop), SystemPrompt: func(context.Context, string, string) (string, error) { return "sys", nil }})
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		res, err := a.Run(context.Background(), agent.Input{Message: "go", History: []llm.Message{}})
		if err != nil || !res.Completed || res.APICalls != 2 {
			b.Fatalf("err %v result %+v", err, res)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(2*b.N), "ns/model-call")
}

// BenchmarkOneShotFiveRoundsPeakRSS runs the five-round terminal task as a
// process and reports its peak resident memory. The peak is read from the
// process's /proc status at each model call: the rusage of a child that
// os/exec started counts the parent's memory too (the child shares the
// parent's address space until it execs).
func BenchmarkOneShotFiveRoundsPeakRSS(b *testing.B) {
	var peak int64
	for i := 0; i < b.N; i++ {
		// The server's handler runs on its own goroutine, one call at a time.
		var pid, hwm atomic.Int64
		var calls atomic.Int32
		srv := llmtest.NewServer(b)
		srv.Handle(func(*llmtest.Request) llmtest.Reply {
			if kb := peakRSSKiB(int(pid.Load())); kb > hwm.Load() {
				hwm.Store(kb)
			}
			round := int(calls.Add(1))
			if round > 5 {
				return llmtest.Reply{Text: "done"}
			}
			return llmtest.Reply{ToolCalls: []llm.ToolCall{{Name: "terminal", Arguments: fmt.Sprintf(`{"command":"echo round %d"}`, round)}}}
		})
		home := b.TempDir()
		cmd := exec.Command(hermesBin, "-z", "five rounds", "--provider", "custom", "--base-url", srv.URL(), "--model", "m",
			"--usage-file", filepath.Join(home, "u.json"))
		cmd.Env = []string{"HOME=" + home, "HERMES_HOME=" + home, "PATH=/usr/bin:/bin"}
		cmd.Dir = home
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Start(); err != nil {
			b.Fatal(err)
		}
		pid.Store(int64(cmd.Process.Pid))
		if err := cmd.Wait(); err != nil || calls.Load() != 6 {
			b.Fatalf("%v after %d calls: %s", err, calls.Load(), out.Bytes())
		}
		srv.Close()
		peak = max(peak, hwm.Load())
	}
	if peak == 0 {
		b.Skip("no /proc/PID/status here")
	}
	b.ReportMetric(float64(peak)/1024, "peak-RSS-MB")
}

// peakRSSKiB reads VmHWM, the peak resident set, of a live process.
func peakRSSKiB(pid int) int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return kb
		}
	}
	return 0
}

// BenchmarkSessionsList10k times the `hermes sessions list` command (the
// process, default page) over a store holding 10,000 sessions.
func BenchmarkSessionsList10k(b *testing.B) {
	home := b.TempDir()
	st, err := session.Open(filepath.Join(home, "state.db"))
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := range 10_000 {
		at := start.Add(time.Duration(i) * time.Minute)
		s, err := st.CreateSession(ctx, session.Session{ID: fmt.Sprintf("20260101_000000_%06x", i), Source: "cli", Model: "m", StartedAt: at})
		if err != nil {
			b.Fatal(err)
		}
		if err := st.AppendMessage(ctx, s.ID, llm.Message{Role: llm.RoleUser, Content: fmt.Sprintf("question %d", i), Time: at}); err != nil {
			b.Fatal(err)
		}
	}
	st.Close()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		cmd := exec.Command(hermesBin, "sessions", "list")
		cmd.Env = []string{"HOME=" + home, "HERMES_HOME=" + home}
		out, err := cmd.Output()
		if err != nil || !bytes.Contains(out, []byte("question 9999")) {
			b.Fatalf("%v: %s", err, out)
		}
	}
}
