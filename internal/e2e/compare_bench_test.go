package e2e

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync/atomic"
	"testing"

	"github.com/hermes-go/hermes/llm"
	"github.com/hermes-go/hermes/llm/llmtest"
)

// builds are the binaries a comparison runs side by side in one run:
// this build, and the one HERMES_BENCH_BASELINE names (an earlier build
// of hermes), when set.
func builds() map[string]string {
	out := map[string]string{"current": hermesBin}
	if b := os.Getenv("HERMES_BENCH_BASELINE"); b != "" {
		out["baseline"] = b
	}
	return out
}

// runRounds runs `bin -z` over a fake provider that asks for rounds echo
// commands, one per model call, then answers; extra are more flags.
func runRounds(b *testing.B, bin string, rounds int, extra ...string) {
	b.Helper()
	var calls atomic.Int32
	srv := llmtest.NewServer(b)
	srv.Handle(func(*llmtest.Request) llmtest.Reply {
		n := int(calls.Add(1))
		if n > rounds {
			return llmtest.Reply{Text: "done"}
		}
		return llmtest.Reply{ToolCalls: []llm.ToolCall{{Name: "terminal", Arguments: fmt.Sprintf(`{"command":"echo round %d"}`, n)}}}
	})
	defer srv.Close()
	home := b.TempDir()
	args := append([]string{"-z", "rounds", "--provider", "custom", "--base-url", srv.URL(), "--model", "m"}, extra...)
	cmd := exec.Command(bin, args...)
	cmd.Env = []string{"HOME=" + home, "HERMES_HOME=" + home, "PATH=/usr/bin:/bin", "HERMES_LOCAL_PORTS=none"}
	cmd.Dir = home
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil || int(calls.Load()) != rounds+1 {
		b.Fatalf("%s: %v after %d calls: %s", filepath.Base(bin), err, calls.Load(), out.Bytes())
	}
}

// BenchmarkFiveRoundsByBuild is the five-round task (five echo rounds
// with -z, sandbox and checkpoints on by default), and the same with
// --sandbox full-access and as a one-round task, for this build and the
// baseline build in the same run: compare within a run, as this
// machine's speed changes from day to day.
func BenchmarkFiveRoundsByBuild(b *testing.B) {
	for name, bin := range builds() {
		b.Run(name+"/five-rounds", func(b *testing.B) {
			for b.Loop() {
				runRounds(b, bin, 5)
			}
		})
		b.Run(name+"/five-rounds-full-access", func(b *testing.B) {
			for b.Loop() {
				runRounds(b, bin, 5, "--sandbox", "full-access")
			}
		})
		b.Run(name+"/one-round", func(b *testing.B) {
			for b.Loop() {
				runRounds(b, bin, 1)
			}
		})
		b.Run(name+"/version", func(b *testing.B) {
			for b.Loop() {
				if err := exec.Command(bin, "--version").Run(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
