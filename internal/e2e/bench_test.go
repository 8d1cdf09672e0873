package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os/exec"
	"os"
	"path/filepath"
	"strconv"
	"strings"
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

// BenchmarkStartupVersion times `hermes --version` as a process.
func BenchmarkStartupVersion(b *testing.B) {
	for i := 0; i < b.N; i++ {
		if err := exec.Command(hermesBin, "--version").Run(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkOneShotFiveRoundsPeakRSS runs the five-round terminal task as a
// process and reports its peak resident memory. The figure comes from
// GNU time, which forks the process itself: Go starts children with
// vfork semantics, and Linux then counts this benchmark's own memory in
// the child's ru_maxrss.
func BenchmarkOneShotFiveRoundsPeakRSS(b *testing.B) {
	timeBin, err := exec.LookPath("/usr/bin/time")
	if err != nil {
		b.Skip("needs GNU time (/usr/bin/time) to measure the child's peak RSS")
	}
	var peak int64
	for i := 0; i < b.N; i++ {
		srv := llmtest.NewServer(b)
		for r := 0; r < 5; r++ {
			srv.Enqueue(llmtest.Reply{ToolCalls: []llm.ToolCall{{Name: "terminal", Arguments: fmt.Sprintf(`{"command":"echo round %d"}`, r)}}})
		}
		srv.Enqueue(llmtest.Reply{Text: "done"})
		home := b.TempDir()
		rss := filepath.Join(home, "rss")
		cmd := exec.Command(timeBin, "-f", "%M", "-o", rss, hermesBin, "-z", "five rounds", "--provider", "custom", "--base-url", srv.URL(), "--model", "m",
			"--usage-file", filepath.Join(home, "u.json"))
		cmd.Env = []string{"HOME=" + home, "HERMES_HOME=" + home, "PATH=/usr/bin:/bin"}
		cmd.Dir = home
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("%v: %s", err, out)
		}
		raw, err := os.ReadFile(rss)
		if err != nil {
			b.Fatal(err)
		}
		kb, err := strconv.ParseInt(strings.TrimSpace(string(raw)), 10, 64)
		if err != nil {
			b.Fatalf("GNU time wrote %q: %v", raw, err)
		}
		peak = max(peak, kb)
		srv.Close()
	}
	b.ReportMetric(float64(peak)/1024, "peak-RSS-MB")
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
