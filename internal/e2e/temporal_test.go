package e2e

import (
	"bytes"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/hermes-go/hermes/batch/temporal"
	"github.com/hermes-go/hermes/internal/testpeer"
	"github.com/hermes-go/hermes/llm/llmtest"
)

var (
	temporalBinOnce sync.Once
	temporalBin     string
	temporalBinErr  error
)

// hermesWithTemporal is the hermes binary built with the Temporal engine
// (-tags temporal), built on first use beside the default one.
func hermesWithTemporal(t testing.TB) string {
	t.Helper()
	temporalBinOnce.Do(func() {
		bin := filepath.Join(filepath.Dir(hermesBin), "hermes-temporal")
		build := exec.Command("go", "build", "-tags", "temporal", "-ldflags=-s -w", "-o", bin, "./cmd/hermes")
		build.Dir = moduleRoot
		build.Env = append(os.Environ(), "CGO_ENABLED=0")
		if out, err := build.CombinedOutput(); err != nil {
			temporalBinErr = fmt.Errorf("building hermes -tags temporal: %v\n%s", err, out)
			return
		}
		temporalBin = bin
	})
	if temporalBinErr != nil {
		t.Fatal(temporalBinErr)
	}
	return temporalBin
}

func freePort(t testing.TB) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// startTemporal runs a Temporal dev server (in memory, no UI) on
// 127.0.0.1 for the test and returns its frontend address.
func startTemporal(t testing.TB) string {
	t.Helper()
	bin := testpeer.Temporal(t)
	port := freePort(t)
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	cmd := exec.Command(bin, "server", "start-dev", "--headless", "--ip", "127.0.0.1", "--port", fmt.Sprint(port),
		"--http-port", fmt.Sprint(freePort(t)), "--metrics-port", fmt.Sprint(freePort(t)), "--log-level", "error",
		// Activities handed to the worker with its workflow task, not through
		// the task queue: a few ms per step rather than ~50.
		"--dynamic-config-value", "system.enableActivityEagerExecution=true")
	var logs bytes.Buffer
	cmd.Stdout, cmd.Stderr = &logs, &logs
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		cmd.Wait()
	})
	for deadline := time.Now().Add(90 * time.Second); ; time.Sleep(200 * time.Millisecond) {
		if c, err := temporal.Dial(addr, "default", nil); err == nil {
			c.Close()
			return addr
		}
		if time.Now().After(deadline) {
			t.Fatalf("the Temporal dev server did not come up at %s:\n%s", addr, logs.String())
		}
	}
}

// process is a hermes process the test started and ends.
type process struct {
	cmd  *exec.Cmd
	out  bytes.Buffer
	done chan struct{}
}

// startTemporalHermes starts the Temporal build of hermes.
func startTemporalHermes(t *testing.T, home, work string, args ...string) *process {
	t.Helper()
	p := &process{cmd: exec.Command(hermesWithTemporal(t), args...), done: make(chan struct{})}
	p.cmd.Dir = work
	p.cmd.Env = []string{"HOME=" + home, "HERMES_HOME=" + home, "PATH=" + os.Getenv("PATH"), "HERMES_LOCAL_PORTS=none"}
	w := &syncWriter{w: &p.out}
	p.cmd.Stdout, p.cmd.Stderr = w, w
	p.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { p.cmd.Wait(); close(p.done) }()
	t.Cleanup(p.kill)
	return p
}

func (p *process) kill() {
	syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
	<-p.done
}

func (p *process) output() string {
	return p.cmd.Stdout.(*syncWriter).String()
}

type syncWriter struct {
	mu sync.Mutex
	w  *bytes.Buffer
}

func (s *syncWriter) Write(b []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Write(b)
}

func (s *syncWriter) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.String()
}

// With --engine temporal and two workers, one SIGKILLed while it is in
// the middle of a model call: every prompt still completes, exactly once,
// and no tool call that had completed runs again (each command appends
// its own line to the prompt's calls.log: every line is there once).
func TestBatchTemporalSurvivesAKilledWorker(t *testing.T) {
	addr := startTemporal(t)
	const prompts = 40
	// Worker A runs one call at a time; its 6th model call never answers,
	// and the test kills A while A waits on it.
	srvA, srvB := llmtest.NewServer(t), llmtest.NewServer(t)
	srvA.AllowUnexpected()
	var calls atomic.Int32
	hung := make(chan struct{})
	script := batchScript(0)
	srvA.Handle(func(r *llmtest.Request) llmtest.Reply {
		if calls.Add(1) == 6 {
			close(hung)
			return llmtest.Reply{Hang: true}
		}
		return script(r)
	})
	srvB.Handle(script)

	root := t.TempDir()
	homeA, homeB, homeS, work := filepath.Join(root, "a"), filepath.Join(root, "b"), filepath.Join(root, "s"), filepath.Join(root, "work")
	mkdirs(t, homeA, homeB, homeS, work)
	ds := writeDataset(t, work, prompts)
	worker := func(home, url string, extra ...string) *process {
		return startTemporalHermes(t, home, work, append([]string{"batch", "worker", "--temporal", addr, "--provider", "custom", "--base-url", url, "--model", "m"}, extra...)...)
	}
	a := worker(homeA, srvA.URL(), "--activities", "1")
	b := worker(homeB, srvB.URL())
	sub := startTemporalHermes(t, homeS, work, "batch", "--engine", "temporal", "--temporal", addr, "--dataset", ds, "--run-name", "t1",
		"--workers", fmt.Sprint(prompts), "--heartbeat", "2", "--keep-workspaces")

	select {
	case <-hung:
	case <-sub.done:
		t.Fatalf("the batch ended before worker A was killed:\n%s", sub.output())
	case <-time.After(90 * time.Second):
		t.Fatalf("worker A never got its 6th model call\nA: %s\nB: %s\nsubmitter: %s", a.output(), b.output(), sub.output())
	}
	a.kill()
	select {
	case <-sub.done:
	case <-time.After(120 * time.Second):
		t.Fatalf("the batch did not finish after worker A died\nB: %s\nsubmitter: %s", b.output(), sub.output())
	}
	if code := sub.cmd.ProcessState.ExitCode(); code != 0 || !strings.Contains(sub.output(), fmt.Sprintf("t1: %d/%d prompts have trajectories (%d completed", prompts, prompts, prompts)) {
		t.Fatalf("submitter exit %d:\n%s\nB: %s", code, sub.output(), b.output())
	}
	dir := filepath.Join(work, "data", "t1")
	entries := checkBatchRun(t, dir, prompts)
	for _, e := range entries {
		if e.Metadata.Engine != "temporal" {
			t.Fatalf("prompt %d: engine %q", e.PromptIndex, e.Metadata.Engine)
		}
	}
	checkCallsLogs(t, dir, prompts)
}

// checkCallsLogs checks that every command of the script ran exactly
// once, in its prompt's workspace.
func checkCallsLogs(t *testing.T, dir string, prompts int) {
	t.Helper()
	for n := range prompts {
		b, _ := os.ReadFile(filepath.Join(dir, "workspaces", fmt.Sprint(n), "calls.log"))
		var want string
		switch {
		case n%5 == 0:
		case n%7 == 0 || n%11 == 0:
			want = fmt.Sprintf("%d-1\n", n)
		default:
			want = fmt.Sprintf("%d-0\n%d-1\n", n, n)
		}
		if string(b) != want {
			t.Errorf("prompt %d: calls.log = %q, want %q (a completed tool call ran again, or one never ran)", n, b, want)
		}
	}
}

// The submitter SIGKILLed mid-run and resumed picks up the workflows
// where they are: finished ones give their results, running ones are
// waited for, none is started again.
func TestBatchTemporalResumedSubmitterRunsNothingTwice(t *testing.T) {
	addr := startTemporal(t)
	const prompts = 30
	srv := llmtest.NewServer(t)
	srv.Handle(batchScript(20 * time.Millisecond))
	root := t.TempDir()
	homeW, homeS, work := filepath.Join(root, "w"), filepath.Join(root, "s"), filepath.Join(root, "work")
	mkdirs(t, homeW, homeS, work)
	ds := writeDataset(t, work, prompts)
	startTemporalHermes(t, homeW, work, "batch", "worker", "--temporal", addr, "--provider", "custom", "--base-url", srv.URL(), "--model", "m")
	args := []string{"batch", "--engine", "temporal", "--temporal", addr, "--dataset", ds, "--run-name", "t2", "--workers", "10", "--keep-workspaces"}
	sub := startTemporalHermes(t, homeS, work, args...)
	traj := filepath.Join(work, "data", "t2", "trajectories.jsonl")
	for deadline := time.Now().Add(90 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if b, _ := os.ReadFile(traj); strings.Count(string(b), "\n") >= 8 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no progress:\n%s", sub.output())
		}
	}
	sub.kill()
	before := len(readEntries(t, traj))
	if before >= prompts {
		t.Fatalf("the batch finished (%d) before it was killed", before)
	}
	resumed := startTemporalHermes(t, homeS, work, append(args, "--resume")...)
	select {
	case <-resumed.done:
	case <-time.After(120 * time.Second):
		t.Fatalf("the resumed batch did not finish:\n%s", resumed.output())
	}
	if code := resumed.cmd.ProcessState.ExitCode(); code != 0 || !strings.Contains(resumed.output(), fmt.Sprintf("resuming t2: %d of %d prompts already done", before, prompts)) {
		t.Fatalf("resume exit %d:\n%s", code, resumed.output())
	}
	dir := filepath.Join(work, "data", "t2")
	checkBatchRun(t, dir, prompts)
	checkCallsLogs(t, dir, prompts)
}
