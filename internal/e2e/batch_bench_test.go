package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
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
// time, for this build and, with HERMES_BENCH_BASELINE, an earlier one in
// the same run. One op is the whole batch; prompts/s is reported.
func BenchmarkBatchLocal1000Prompts(b *testing.B) {
	const prompts = 1000
	for name, bin := range builds() {
		b.Run(name, func(b *testing.B) {
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
				cmd.Path, cmd.Args[0] = bin, bin
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
		})
	}
}

// BenchmarkBatchTemporal is the Temporal engine with two worker
// processes on this machine: prompts/s for 200 prompts of three tool
// rounds at 100 ms model latency, 64 in flight; and, one prompt at a
// time with a model that answers at once, the time per activity (each
// prompt is 9 activities: setup, 4 model calls, 3 tool calls, finish;
// plus 8 planning steps, local activities), against the local engine's
// time for the same prompt.
func BenchmarkBatchTemporal(b *testing.B) {
	addr := startTemporal(b)
	srv := llmtest.NewServer(b)
	slow := threeRounds(100 * time.Millisecond)
	fast := threeRounds(0)
	srv.Handle(func(r *llmtest.Request) llmtest.Reply {
		if n, _ := batchState(r.Messages()); n >= 100000 {
			return fast(r)
		}
		return slow(r)
	})
	root := b.TempDir()
	home, work := filepath.Join(root, "home"), filepath.Join(root, "work")
	mkdirs(b, home, work)
	for range 2 {
		w := exec.Command(hermesWithTemporal(b), "batch", "worker", "--temporal", addr, "--provider", "custom", "--base-url", srv.URL(), "--model", "m")
		w.Dir, w.Env = work, batchCmd(home, work).Env
		w.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		if err := w.Start(); err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { syscall.Kill(-w.Process.Pid, syscall.SIGKILL); w.Wait() })
	}
	iter := 0
	// batchRun runs a batch and returns its wall time and the mean time of
	// its prompts (from their trajectories: workflow start to end).
	batchRun := func(b *testing.B, first, n, workers int, engine ...string) (time.Duration, time.Duration) {
		iter++
		var lines strings.Builder
		for i := range n {
			fmt.Fprintf(&lines, "{\"prompt\": \"task %d\"}\n", first+i)
		}
		ds := filepath.Join(work, fmt.Sprintf("ds%d.jsonl", iter))
		if err := os.WriteFile(ds, []byte(lines.String()), 0o644); err != nil {
			b.Fatal(err)
		}
		args := append([]string{"--dataset", ds, "--run-name", fmt.Sprintf("bench%d", iter), "--workers", fmt.Sprint(workers),
			"--provider", "custom", "--base-url", srv.URL(), "--model", "m"}, engine...)
		cmd := batchCmd(home, work, args...)
		if len(engine) > 0 {
			cmd.Path = hermesWithTemporal(b)
		}
		start := time.Now()
		out, err := cmd.CombinedOutput()
		el := time.Since(start)
		if err != nil {
			b.Fatalf("%v\n%s", err, out[max(0, len(out)-2000):])
		}
		var sum float64
		entries := readEntriesTB(b, filepath.Join(work, "data", fmt.Sprintf("bench%d", iter), "trajectories.jsonl"))
		for _, e := range entries {
			sum += e.Metadata.Seconds
		}
		return el, time.Duration(sum / float64(len(entries)) * float64(time.Second))
	}
	temporalFlags := []string{"--engine", "temporal", "--temporal", addr}
	b.Run("200prompts-100ms", func(b *testing.B) {
		for range b.N {
			el, _ := batchRun(b, 0, 200, 64, temporalFlags...)
			b.ReportMetric(200/el.Seconds(), "prompts/s")
		}
	})
	b.Run("per-activity", func(b *testing.B) {
		const n = 20
		for range b.N {
			_, tp := batchRun(b, 100000, n, 1, temporalFlags...)
			_, lp := batchRun(b, 100000, n, 1)
			ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
			b.ReportMetric(ms(tp), "temporal-ms/prompt")
			b.ReportMetric(ms(lp), "local-ms/prompt")
			b.ReportMetric(ms(tp-lp)/9, "overhead-ms/activity")
		}
	})
}

// BenchmarkBatchLocal1000PromptsFloor is the floor under
// BenchmarkBatchLocal1000Prompts: the same 1,000 prompts, fake model,
// latency and 64 workers, driven by the least loop there can be, in this
// process: each prompt gets a directory of its own, its four model calls
// (the conversation so far as JSON, the streamed answer read to the end)
// and its three `echo` commands through bash, unsandboxed; nothing
// stored, checked or redacted.
func BenchmarkBatchLocal1000PromptsFloor(b *testing.B) {
	const prompts, workers = 1000, 64
	for range b.N {
		b.StopTimer()
		srv := llmtest.NewServer(b)
		srv.Handle(threeRounds(100 * time.Millisecond))
		work := b.TempDir()
		todo := make(chan int, prompts)
		for i := range prompts {
			todo <- i
		}
		close(todo)
		b.StartTimer()
		start := time.Now()
		var wg sync.WaitGroup
		errs := make(chan error, workers)
		for range workers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for n := range todo {
					if err := floorPrompt(srv.URL(), work, n); err != nil {
						errs <- err
						return
					}
				}
			}()
		}
		wg.Wait()
		el := time.Since(start)
		b.StopTimer()
		close(errs)
		if err := <-errs; err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(prompts/el.Seconds(), "prompts/s")
		b.ReportMetric(el.Seconds(), "s/batch")
		srv.Close()
	}
}

// floorPrompt runs prompt n of the floor: model calls until the answer,
// each tool call's command run with bash in the prompt's directory.
func floorPrompt(url, work string, n int) error {
	dir := filepath.Join(work, strconv.Itoa(n))
	if err := os.Mkdir(dir, 0o755); err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	msgs := []map[string]any{{"role": "user", "content": fmt.Sprintf("task %d", n)}}
	for round := 0; ; round++ {
		body, _ := json.Marshal(map[string]any{"model": "m", "stream": true, "messages": msgs})
		resp, err := http.Post(url+"/chat/completions", "application/json", bytes.NewReader(body))
		if err != nil {
			return err
		}
		out, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil {
			return err
		}
		if !bytes.Contains(out, []byte(`"tool_calls"`)) {
			return nil
		}
		id := fmt.Sprintf("call_%d_%d", n, round)
		cmd := exec.Command("bash", "-c", fmt.Sprintf("echo %d-%d >> calls.log", n, round))
		cmd.Dir = dir
		res, err := cmd.CombinedOutput()
		if err != nil {
			return fmt.Errorf("%v: %s", err, res)
		}
		msgs = append(msgs,
			map[string]any{"role": "assistant", "tool_calls": []map[string]any{{"id": id, "type": "function",
				"function": map[string]any{"name": "terminal", "arguments": fmt.Sprintf(`{"command":"echo %d-%d >> calls.log"}`, n, round)}}}},
			map[string]any{"role": "tool", "tool_call_id": id, "content": string(res)})
	}
}
