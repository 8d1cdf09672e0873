package terminal

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hermes-go/hermes/tool"
)

func newTerm(t *testing.T, opts Options) *Terminal {
	t.Helper()
	if opts.Dir == "" {
		opts.Dir = t.TempDir()
	}
	term := New(opts)
	t.Cleanup(func() { term.Close() })
	return term
}

func run(t *testing.T, tl tool.Tool, task string, args any) tool.Result {
	t.Helper()
	return runCtx(t, context.Background(), tl, task, args)
}

func runCtx(t *testing.T, ctx context.Context, tl tool.Tool, task string, args any) tool.Result {
	t.Helper()
	b, err := json.Marshal(args)
	if err != nil {
		t.Fatal(err)
	}
	res, err := tl.Run(ctx, tool.Call{ID: "c1", Name: tl.Spec().Name, Args: b, TaskID: task})
	if err != nil {
		t.Fatalf("Run returned error: %v", err)
	}
	return res
}

func section(out, name string) string {
	i := strings.Index(out, "--- "+name+" ---\n")
	if i < 0 {
		return ""
	}
	s := out[i+len(name)+9:]
	if j := strings.Index(s, "\n--- "); j >= 0 {
		s = s[:j+1]
	}
	if j := strings.Index(s, "stderr: (empty)"); j >= 0 {
		s = s[:j]
	}
	return s
}

func TestTerminalReportsExitCodeAndSeparateStreams(t *testing.T) {
	term := newTerm(t, Options{})
	tests := []struct {
		name, cmd      string
		code           int
		stdout, stderr string
	}{
		{"success", "echo hello", 0, "hello\n", ""},
		{"failure exit code", "echo out; echo err >&2; exit 3", 3, "out\n", "err\n"},
		{"command not found", "no-such-command-hermes", 127, "", "not found"},
		{"syntax error still reports", "if then", 2, "", "syntax error"},
		{"multi-line command", "a=1\nb=2\necho $((a+b))", 0, "3\n", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := run(t, term.TerminalTool(), "t", map[string]any{"command": tc.cmd})
			if !strings.HasPrefix(res.Content, fmt.Sprintf("exit code: %d\n", tc.code)) {
				t.Fatalf("want exit code %d, got:\n%s", tc.code, res.Content)
			}
			if res.IsError {
				t.Errorf("a command that ran is not a tool failure: %s", res.Content)
			}
			if got := section(res.Content, "stdout"); got != tc.stdout {
				t.Errorf("stdout = %q, want %q\n%s", got, tc.stdout, res.Content)
			}
			if got := section(res.Content, "stderr"); !strings.Contains(got, tc.stderr) {
				t.Errorf("stderr = %q, want it to contain %q", got, tc.stderr)
			}
		})
	}
}

func TestTerminalWorkingDirectoryPersistsPerTask(t *testing.T) {
	base := t.TempDir()
	sub := filepath.Join(base, "sub")
	os.Mkdir(sub, 0o755)
	term := newTerm(t, Options{Dir: base})
	tt := term.TerminalTool()

	run(t, tt, "a", map[string]any{"command": "cd sub"})
	res := run(t, tt, "a", map[string]any{"command": "pwd"})
	if got := section(res.Content, "stdout"); got != sub+"\n" {
		t.Errorf("task a pwd after cd = %q, want %q", got, sub)
	}
	if term.Workdir("a") != sub {
		t.Errorf("Workdir(a) = %q, want %q", term.Workdir("a"), sub)
	}
	res = run(t, tt, "b", map[string]any{"command": "pwd"})
	if got := section(res.Content, "stdout"); got != base+"\n" {
		t.Errorf("task b must not see task a's cd: pwd = %q", got)
	}
	// cd followed by a failing exit still moves the directory.
	run(t, tt, "b", map[string]any{"command": "cd sub && exit 4"})
	if term.Workdir("b") != sub {
		t.Errorf("cd before exit 4 not kept: %q", term.Workdir("b"))
	}
	// workdir runs one command elsewhere without moving the task.
	res = run(t, tt, "a", map[string]any{"command": "pwd", "workdir": base})
	if got := section(res.Content, "stdout"); got != base+"\n" || term.Workdir("a") != sub {
		t.Errorf("workdir: pwd %q, task dir %q", got, term.Workdir("a"))
	}
	// A deleted directory falls back to the base.
	os.Remove(sub)
	res = run(t, tt, "a", map[string]any{"command": "pwd"})
	if got := section(res.Content, "stdout"); got != base+"\n" {
		t.Errorf("after removing the task dir pwd = %q, want base", got)
	}
}

func pidAlive(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return syscall.Kill(pid, 0) == nil
	}
	// state field follows "(comm) "
	s := string(b)
	i := strings.LastIndex(s, ") ")
	return i < 0 || s[i+2] != 'Z'
}

func waitDead(t *testing.T, pid int) {
	t.Helper()
	// SIGKILL has been sent; the kernel needs a moment to tear the process
	// down. Bounded poll, not a timing assertion.
	for i := 0; i < 500 && pidAlive(pid); i++ {
		time.Sleep(10 * time.Millisecond)
	}
	if pidAlive(pid) {
		t.Fatalf("pid %d still alive", pid)
	}
}

func TestTerminalTimeoutKillsTheProcessGroup(t *testing.T) {
	dir := t.TempDir()
	term := newTerm(t, Options{Dir: dir})
	pidFile := filepath.Join(dir, "pid")
	res := run(t, term.TerminalTool(), "t", map[string]any{
		"command": "sleep 100 & echo $! > " + pidFile + "; echo started; wait",
		"timeout": 0.3,
	})
	if !res.IsError || !strings.Contains(res.Content, "timed out after 300ms") {
		t.Fatalf("want a timeout result, got IsError=%v:\n%s", res.IsError, res.Content)
	}
	if !strings.Contains(res.Content, "started") {
		t.Errorf("output before the timeout is lost:\n%s", res.Content)
	}
	b, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	waitDead(t, pid)
}

func TestTerminalDefaultTimeoutFromOptions(t *testing.T) {
	term := newTerm(t, Options{Timeout: 200 * time.Millisecond})
	res := run(t, term.TerminalTool(), "t", map[string]any{"command": "sleep 100"})
	if !res.IsError || !strings.Contains(res.Content, "timed out after 200ms") {
		t.Fatalf("got:\n%s", res.Content)
	}
}

func TestTerminalCancelKillsTheProcessGroup(t *testing.T) {
	dir := t.TempDir()
	term := newTerm(t, Options{Dir: dir})
	pidFile := filepath.Join(dir, "pid")
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan tool.Result)
	go func() {
		done <- runCtx(t, ctx, term.TerminalTool(), "t", map[string]any{
			"command": "sleep 100 & echo $! > " + pidFile + ".tmp; mv " + pidFile + ".tmp " + pidFile + "; wait",
		})
	}()
	for i := 0; i < 1000; i++ {
		if _, err := os.Stat(pidFile); err == nil {
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	cancel()
	res := <-done
	if !res.IsError || !strings.Contains(res.Content, "cancelled") {
		t.Fatalf("got:\n%s", res.Content)
	}
	b, _ := os.ReadFile(pidFile)
	pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	waitDead(t, pid)
}

func TestTerminalCapsOutputKeepingHeadAndTail(t *testing.T) {
	term := newTerm(t, Options{MaxOutput: 1000})
	res := run(t, term.TerminalTool(), "t", map[string]any{"command": "echo FIRST; seq 1 100000; echo LAST"})
	out := section(res.Content, "stdout")
	if !strings.HasPrefix(out, "FIRST\n") || !strings.HasSuffix(out, "LAST\n") {
		t.Errorf("head or tail missing: %q...%q", out[:20], out[len(out)-20:])
	}
	if !strings.Contains(out, "bytes of output truncated") {
		t.Errorf("no truncation marker")
	}
	if len(out) > 1200 {
		t.Errorf("output not capped: %d bytes", len(out))
	}
}

func TestTerminalRedactsOutput(t *testing.T) {
	term := newTerm(t, Options{Redact: func(s string) string { return strings.ReplaceAll(s, "s3cret", "[REDACTED]") }})
	res := run(t, term.TerminalTool(), "t", map[string]any{"command": "echo key=s3cret; echo s3cret >&2"})
	if strings.Contains(res.Content, "s3cret") || !strings.Contains(res.Content, "[REDACTED]") {
		t.Errorf("not redacted:\n%s", res.Content)
	}
}

func TestTerminalEnvFromOptions(t *testing.T) {
	term := newTerm(t, Options{Env: []string{"HERMES_TEST_VAR=xyz"}})
	res := run(t, term.TerminalTool(), "t", map[string]any{"command": "echo $HERMES_TEST_VAR"})
	if section(res.Content, "stdout") != "xyz\n" {
		t.Errorf("env not passed:\n%s", res.Content)
	}
}

func TestTerminalShellFallbackSh(t *testing.T) {
	term := newTerm(t, Options{Shell: "/bin/sh"})
	tt := term.TerminalTool()
	run(t, tt, "t", map[string]any{"command": "cd /"})
	res := run(t, tt, "t", map[string]any{"command": "pwd; exit 5"})
	if !strings.HasPrefix(res.Content, "exit code: 5") || section(res.Content, "stdout") != "/\n" {
		t.Errorf("sh: %s", res.Content)
	}
}

func TestTerminalIsACommander(t *testing.T) {
	term := newTerm(t, Options{})
	c, ok := term.TerminalTool().(tool.Commander)
	if !ok {
		t.Fatal("terminal does not implement tool.Commander")
	}
	cmd, ok := c.Command(json.RawMessage(`{"command":"rm -rf build","background":true}`))
	if !ok || cmd != "rm -rf build" {
		t.Errorf("Command = %q, %v", cmd, ok)
	}
	if s := term.TerminalTool().Spec(); s.Class != tool.Sequential || s.Toolset != "terminal" {
		t.Errorf("spec class/toolset: %v %q", s.Class, s.Toolset)
	}
}

func TestTerminalRejectsBadArguments(t *testing.T) {
	term := newTerm(t, Options{})
	for name, args := range map[string]any{
		"empty command":    map[string]any{"command": ""},
		"negative timeout": map[string]any{"command": "true", "timeout": -1},
		"missing workdir":  map[string]any{"command": "true", "workdir": "/no/such/dir/hermes"},
	} {
		t.Run(name, func(t *testing.T) {
			if res := run(t, term.TerminalTool(), "t", args); !res.IsError {
				t.Errorf("want an error result, got %s", res.Content)
			}
		})
	}
}
