package terminal

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hermes-go/hermes/sandbox"
)

// limitedJail is a workspace-write terminal whose commands may have at
// most max processes; it skips where the sandbox or the limit cannot be
// had, after checking that the status says which.
func limitedJail(t *testing.T, max int) (*Terminal, string) {
	t.Helper()
	base := sandbox.Resolve(t.TempDir())
	ws, home := filepath.Join(base, "work"), filepath.Join(base, "home")
	for _, d := range []string{ws, home, filepath.Join(base, "tmp")} {
		os.MkdirAll(d, 0o755)
	}
	p, err := sandbox.NewPolicy(sandbox.Options{Mode: sandbox.WorkspaceWrite, Workdir: ws, Home: home, HermesHome: filepath.Join(home, ".hermes"), Scratch: []string{filepath.Join(base, "tmp")}})
	if err != nil {
		t.Fatal(err)
	}
	p.MaxProcesses = max
	e := p.Enforcement()
	if e.Level != sandbox.Full {
		t.Skipf("this system cannot enforce the sandbox: %s", e)
	}
	if e.MaxProcesses == 0 {
		if !strings.Contains(e.String(), "fork bomb is not contained") {
			t.Fatalf("processes are not limited and the status does not say so: %s", e)
		}
		t.Skipf("processes are not limited here: %s", e)
	}
	return newTerm(t, Options{Dir: ws, Sandbox: &p}), ws
}

// groupProcs are the live processes in this process's sandbox cgroups
// (named hermes-<pid>-<n>).
func groupProcs() []int {
	mark := fmt.Sprintf("/hermes-%d-", os.Getpid())
	entries, _ := os.ReadDir("/proc")
	var out []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cgroup"))
		if err == nil && strings.Contains(string(b), mark) && pidAlive(pid) {
			out = append(out, pid)
		}
	}
	return out
}

// noGroupProcs fails t unless the sandbox cgroups empty within a few
// seconds (killed processes are torn down by the kernel, then reaped).
func noGroupProcs(t *testing.T) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for len(groupProcs()) > 0 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if left := groupProcs(); len(left) > 0 {
		t.Fatalf("%d processes of the command outlived its result: %v", len(left), left)
	}
}

// A fork bomb through the terminal tool stops at the process limit, ends
// with its result, and leaves no process behind; hermes answers another
// command meanwhile.
func TestTerminalForkBombIsContained(t *testing.T) {
	term, _ := limitedJail(t, 64)
	other, _ := limitedJail(t, 64)
	done := make(chan string)
	start := time.Now()
	go func() {
		res := run(t, term.TerminalTool(), "t", map[string]any{"command": ":(){ :|:& };:; sleep 3", "timeout": 4})
		done <- res.Content
	}()
	// While it runs, the bomb holds at most its limit, and another
	// command runs as usual.
	peak := 0
	for deadline := time.Now().Add(3 * time.Second); peak < 32 && time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		peak = max(peak, len(groupProcs()))
	}
	if peak < 16 || peak > 64 {
		t.Fatalf("the fork bomb had at most %d processes in its group, want it to grow inside its group (16 or more) and stay within the limit of 64", peak)
	}
	t0 := time.Now()
	res := run(t, other.TerminalTool(), "t", map[string]any{"command": "echo still here"})
	if section(res.Content, "stdout") != "still here\n" {
		t.Fatalf("a command beside the fork bomb:\n%s", res.Content)
	}
	t.Logf("a command beside the fork bomb took %s", time.Since(t0))
	var out string
	select {
	case out = <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("the fork bomb's command did not end")
	}
	took := time.Since(start)
	if !strings.Contains(out, "exit code:") {
		t.Fatalf("no result:\n%s", out)
	}
	noGroupProcs(t)
	t.Logf("fork bomb contained: result after %s (sleep 3, timeout 4s, at most 64 processes), none left", took)
}

// A command that timed out takes every process it started with it: one
// in its process group, and one that left it for a session of its own.
func TestTerminalTimeoutKillsEveryProcessOfTheCommand(t *testing.T) {
	term, ws := limitedJail(t, 0)
	res := run(t, term.TerminalTool(), "t", map[string]any{
		"command": "sleep 1000 & echo $! > pid1; setsid sleep 1000 >/dev/null 2>&1 & echo $! > pid2; echo started; wait",
		"timeout": 0.5,
	})
	if !res.IsError || !strings.Contains(res.Content, "timed out") || !strings.Contains(res.Content, "started") {
		t.Fatalf("want a timeout result:\n%s", res.Content)
	}
	for _, f := range []string{"pid1", "pid2"} {
		b, err := os.ReadFile(filepath.Join(ws, f))
		if err != nil {
			t.Fatal(err)
		}
		pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
		waitDead(t, pid)
	}
	noGroupProcs(t)
}

// A foreground command's result ends what it left running, even after a
// normal exit.
func TestTerminalForegroundLeavesNothingRunning(t *testing.T) {
	term, ws := limitedJail(t, 0)
	res := run(t, term.TerminalTool(), "t", map[string]any{
		"command": "setsid sleep 1000 >/dev/null 2>&1 & echo $! > pid",
	})
	if !strings.HasPrefix(res.Content, "exit code: 0") {
		t.Fatalf("got:\n%s", res.Content)
	}
	b, err := os.ReadFile(filepath.Join(ws, "pid"))
	if err != nil {
		t.Fatal(err)
	}
	pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	waitDead(t, pid)
	noGroupProcs(t)
}

// A gigabyte of output comes back promptly, as its head and tail, and
// hermes' memory does not grow with it: the middle is dropped as it is
// read.
func TestTerminalGigabyteOfOutputIsBounded(t *testing.T) {
	for _, sandboxed := range []bool{false, true} {
		t.Run(fmt.Sprintf("sandboxed=%v", sandboxed), func(t *testing.T) {
			var term *Terminal
			if sandboxed {
				term, _ = limitedJail(t, 0)
			} else {
				term = newTerm(t, Options{})
			}
			tt := term.TerminalTool()
			run(t, tt, "t", map[string]any{"command": "true"}) // the sandbox's helper starts
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			start := time.Now()
			res := run(t, tt, "t", map[string]any{"command": "echo first; yes | head -c 1000000000; echo; echo last", "timeout": 120})
			took := time.Since(start)
			runtime.ReadMemStats(&after)
			allocated := after.TotalAlloc - before.TotalAlloc
			runtime.GC()
			runtime.ReadMemStats(&after)
			t.Logf("1 GB of output: %s; allocated %.1f MB in all while reading it; heap %.1f MB before, %.1f MB after; result %d bytes",
				took, float64(allocated)/1e6, float64(before.HeapAlloc)/1e6, float64(after.HeapAlloc)/1e6, len(res.Content))
			out := section(res.Content, "stdout")
			if !strings.HasPrefix(out, "first\ny\ny\n") || !strings.HasSuffix(out, "y\n\nlast\n") || !strings.Contains(out, "bytes of output truncated (1000000012 total)") {
				t.Fatalf("want the head, the tail and the truncation marker; got %d bytes: %q ... %q", len(out), out[:min(len(out), 20)], out[max(0, len(out)-100):])
			}
			if len(res.Content) > 2*DefaultMaxOutput {
				t.Fatalf("result of %d bytes, over the %d-byte cap", len(res.Content), DefaultMaxOutput)
			}
			if allocated > 8<<20 {
				t.Fatalf("reading 1 GB of output allocated %d bytes: the output is held, not dropped", allocated)
			}
		})
	}
}
