package mcp

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hermes-go/hermes/sandbox"
	"github.com/hermes-go/hermes/sandbox/sandboxtest"
)

// sandboxPolicy is a workspace-write policy over a workspace ws, with
// victim a directory outside every writable root; it skips the test
// where this system cannot enforce it.
func sandboxPolicy(t *testing.T) (p sandbox.Policy, ws, victim string) {
	t.Helper()
	base := sandbox.Resolve(t.TempDir())
	ws, victim = filepath.Join(base, "work"), filepath.Join(base, "victim")
	os.MkdirAll(ws, 0o755)
	os.MkdirAll(victim, 0o755)
	p, err := sandbox.NewPolicy(sandbox.Options{Mode: sandbox.WorkspaceWrite, Workdir: ws, Home: filepath.Join(base, "home"),
		HermesHome: filepath.Join(base, "home", ".hermes"), Scratch: []string{filepath.Join(base, "tmp")}})
	if err != nil {
		t.Fatal(err)
	}
	if e := p.Enforcement(); e.Level != sandbox.Full {
		t.Skipf("this system cannot enforce the sandbox: %s", e)
	}
	return p, ws, victim
}

// procStat is the parent, process group and session of process pid.
func procStat(t *testing.T, pid string) (ppid, pgid, sid string) {
	t.Helper()
	b, err := os.ReadFile("/proc/" + strings.TrimSpace(pid) + "/stat")
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+2:])
	return f[1], f[2], f[3]
}

func readPid(t *testing.T, file string) string {
	t.Helper()
	var b []byte
	eventually(t, "a pid in "+file, func() bool {
		b, _ = os.ReadFile(file)
		return len(b) > 0
	})
	return strings.TrimSpace(string(b))
}

// Sandboxed servers are forked by the Runner's helper, as the terminal's
// commands are: they live in its mount namespace, not each in one of its
// own as a server wrapped by a helper of its own would; hermes is their
// parent and they lead a session of their own. They list and answer
// tools, and the sandbox holds for them.
func TestSandboxedServersAreForkedByTheRunnersHelper(t *testing.T) {
	p, ws, victim := sandboxPolicy(t)
	r := p.NewRunner()
	t.Cleanup(func() { r.Close() })
	pidA, pidB := filepath.Join(ws, "a.pid"), filepath.Join(ws, "b.pid")
	m, reg := start(t, Options{Sandbox: &p, Runner: r, Dir: ws},
		testServer("a", "HERMES_MCPTEST_PIDFILE="+pidA), testServer("b", "HERMES_MCPTEST_PIDFILE="+pidB))
	if late := m.WaitStarted(context.Background(), 20*time.Second); late != nil {
		t.Fatalf("late %v: %v", late, m.Status())
	}
	if !slices.Contains(reg.Names(), "mcp__a__add_numbers") || !slices.Contains(reg.Names(), "mcp__b__echo") {
		t.Fatalf("tools %v", reg.Names())
	}
	if o := call(t, reg, "mcp__a__add_numbers", map[string]any{"a": 2, "b": 40}); o.Result.Content != "The sum of 2 and 40 is 42." {
		t.Fatalf("add: %+v", o.Result)
	}
	if o := call(t, reg, "mcp__b__echo", map[string]any{"message": "boxed"}); o.Result.Content != "Echo: boxed" {
		t.Fatalf("echo: %+v", o.Result)
	}

	want := sandboxtest.RunnerNamespace(t, r)
	if own := sandboxtest.MountNamespace(t, strconv.Itoa(os.Getpid())); want == own {
		t.Fatalf("the runner's commands run in hermes's own mount namespace %s", own)
	}
	for _, file := range []string{pidA, pidB} {
		pid := readPid(t, file)
		if got := sandboxtest.MountNamespace(t, pid); got != want {
			t.Errorf("server %s runs in mount namespace %s, not the runner's helper's %s", pid, got, want)
		}
		if ppid, pgid, sid := procStat(t, pid); ppid != strconv.Itoa(os.Getpid()) || pgid != pid || sid != pid {
			t.Errorf("server %s: parent %s, process group %s, session %s; want parent %d, its own group and session", pid, ppid, pgid, sid, os.Getpid())
		}
	}

	outside := call(t, reg, "mcp__a__write_file", map[string]any{"path": filepath.Join(victim, "a.txt"), "text": "x"})
	inside := call(t, reg, "mcp__a__write_file", map[string]any{"path": filepath.Join(ws, "a.txt"), "text": "x"})
	if !outside.Result.IsError || inside.Result.Content != "written" {
		t.Fatalf("outside the workspace %+v, inside %+v", outside.Result, inside.Result)
	}
	if _, err := os.Stat(filepath.Join(victim, "a.txt")); err == nil {
		t.Fatal("a server wrote outside the workspace")
	}
}

// Closing the manager ends sandboxed servers and reaps them: one that
// exits when its input closes, and one that ignores that and SIGTERM,
// with a child of its own that does too.
func TestClosingTheManagerEndsSandboxedServersAndWhatTheyStarted(t *testing.T) {
	p, ws, _ := sandboxPolicy(t)
	r := p.NewRunner()
	t.Cleanup(func() { r.Close() })
	polite, stubborn, child := filepath.Join(ws, "polite.pid"), filepath.Join(ws, "stubborn.pid"), filepath.Join(ws, "child.pid")
	m, reg := start(t, Options{Sandbox: &p, Runner: r, Dir: ws},
		testServer("polite", "HERMES_MCPTEST_PIDFILE="+polite),
		testServer("stubborn", "HERMES_MCPTEST_PIDFILE="+stubborn, "HERMES_MCPTEST_LINGER="+child))
	if late := m.WaitStarted(context.Background(), 20*time.Second); late != nil {
		t.Fatalf("late %v: %v", late, m.Status())
	}
	if o := call(t, reg, "mcp__stubborn__echo", map[string]any{"message": "here"}); o.Result.Content != "Echo: here" {
		t.Fatalf("echo: %+v", o.Result)
	}
	pids := map[string]string{"polite server": readPid(t, polite), "stubborn server": readPid(t, stubborn), "stubborn server's child": readPid(t, child)}
	for what, pid := range pids {
		if !alive(t, pid) {
			t.Fatalf("the %s (%s) is not running", what, pid)
		}
	}
	m.Close()
	for _, what := range []string{"polite server", "stubborn server"} {
		// Gone altogether: not left a zombie, hermes reaped it.
		if _, err := os.Stat("/proc/" + pids[what]); err == nil {
			t.Errorf("the %s (%s) is still there after Close", what, pids[what])
		}
	}
	// SIGKILL takes a moment to end a process that is not hermes's child.
	eventually(t, "the stubborn server's child ends", func() bool { return !alive(t, pids["stubborn server's child"]) })
}

// A sandboxed server that cannot start says why, with its name: its
// stderr, read through the runner, or the sandbox's reason.
func TestASandboxedServerThatCannotStartSaysWhy(t *testing.T) {
	p, ws, _ := sandboxPolicy(t)
	r := p.NewRunner()
	t.Cleanup(func() { r.Close() })
	w := newWarnings()
	nodir := testServer("nodir")
	nodir.Dir = "missing"
	start(t, Options{Sandbox: &p, Runner: r, Dir: ws, OnWarning: w.add, Clock: newFakeClock()},
		testServer("bad", "HERMES_MCPTEST_EXIT=3"), nodir)
	for _, want := range [][]string{
		{"MCP server bad failed to start", "failing on purpose"},
		{"MCP server nodir failed to start: sandbox: working directory", filepath.Join(ws, "missing")},
	} {
		eventually(t, strings.Join(want, " ... "), func() bool {
			return slices.ContainsFunc(w.all(), func(s string) bool {
				return !slices.ContainsFunc(want, func(sub string) bool { return !strings.Contains(s, sub) })
			})
		})
	}
}

// A Runner that has no helper (here: closed) starts servers through a
// helper of their own: they work, under the same sandbox.
func TestARunnerWithoutItsHelperStillStartsSandboxedServers(t *testing.T) {
	p, ws, victim := sandboxPolicy(t)
	r := p.NewRunner()
	r.Close()
	m, reg := start(t, Options{Sandbox: &p, Runner: r, Dir: ws}, testServer("s"))
	if late := m.WaitStarted(context.Background(), 20*time.Second); late != nil {
		t.Fatalf("late %v: %v", late, m.Status())
	}
	if o := call(t, reg, "mcp__s__echo", map[string]any{"message": "wrapped"}); o.Result.Content != "Echo: wrapped" {
		t.Fatalf("echo: %+v", o.Result)
	}
	if o := call(t, reg, "mcp__s__write_file", map[string]any{"path": filepath.Join(victim, "s.txt"), "text": "x"}); !o.Result.IsError {
		t.Fatalf("a write outside the workspace: %+v", o.Result)
	}
}

// sandboxHelpers lists the Runner helpers this process started that still
// run.
func sandboxHelpers(t *testing.T) []string {
	t.Helper()
	entries, _ := os.ReadDir("/proc")
	var out []string
	for _, e := range entries {
		pid := e.Name()
		if _, err := strconv.Atoi(pid); err != nil {
			continue
		}
		cmdline, err := os.ReadFile("/proc/" + pid + "/cmdline")
		if err != nil || !bytes.Equal(cmdline, []byte("/proc/self/exe\x00__sandbox\x00")) || !alive(t, pid) {
			continue
		}
		if ppid, _, _ := procStat(t, pid); ppid == strconv.Itoa(os.Getpid()) {
			out = append(out, pid)
		}
	}
	return out
}

// Without a Runner of the caller's, the manager starts one when a server
// needs it: its sandboxed servers share one lane of the sandbox helper
// (one mount namespace), which ends with the manager.
func TestAManagerWithoutARunnerStartsOneAndStopsItOnClose(t *testing.T) {
	p, ws, _ := sandboxPolicy(t)
	pidA, pidB := filepath.Join(ws, "a.pid"), filepath.Join(ws, "b.pid")
	m, _ := start(t, Options{Sandbox: &p, Dir: ws},
		testServer("a", "HERMES_MCPTEST_PIDFILE="+pidA), testServer("b", "HERMES_MCPTEST_PIDFILE="+pidB))
	if late := m.WaitStarted(context.Background(), 20*time.Second); late != nil {
		t.Fatalf("late %v: %v", late, m.Status())
	}
	a, b := sandboxtest.MountNamespace(t, readPid(t, pidA)), sandboxtest.MountNamespace(t, readPid(t, pidB))
	if a != b || a == sandboxtest.MountNamespace(t, strconv.Itoa(os.Getpid())) {
		t.Fatalf("servers in mount namespaces %s and %s: not one helper's", a, b)
	}
	m.Close()
	eventually(t, "the manager's lane ends", func() bool { return len(inNamespace(a)) == 0 })
}

// inNamespace lists the threads (pid/tid) in mount namespace ns.
func inNamespace(ns string) []string {
	tasks, _ := filepath.Glob("/proc/[0-9]*/task/[0-9]*")
	var out []string
	for _, task := range tasks {
		if got, err := os.Readlink(task + "/ns/mnt"); err == nil && got == ns {
			out = append(out, strings.TrimPrefix(task, "/proc/"))
		}
	}
	return out
}

// A full-access policy asks for no helper: its servers start as trusted
// ones do, in hermes's own namespaces, and no Runner helper starts.
func TestFullAccessServersStartWithoutAHelper(t *testing.T) {
	base := sandbox.Resolve(t.TempDir())
	p, err := sandbox.NewPolicy(sandbox.Options{Mode: sandbox.FullAccess, Workdir: base, Home: filepath.Join(base, "home")})
	if err != nil {
		t.Fatal(err)
	}
	helpers := len(sandboxHelpers(t))
	pidfile := filepath.Join(base, "s.pid")
	m, reg := start(t, Options{Sandbox: &p, Dir: base}, testServer("s", "HERMES_MCPTEST_PIDFILE="+pidfile))
	if late := m.WaitStarted(context.Background(), 20*time.Second); late != nil {
		t.Fatalf("late %v: %v", late, m.Status())
	}
	if o := call(t, reg, "mcp__s__echo", map[string]any{"message": "free"}); o.Result.Content != "Echo: free" {
		t.Fatalf("echo: %+v", o.Result)
	}
	if got, own := sandboxtest.MountNamespace(t, readPid(t, pidfile)), sandboxtest.MountNamespace(t, strconv.Itoa(os.Getpid())); got != own {
		t.Errorf("a full-access server runs in mount namespace %s, not hermes's %s", got, own)
	}
	if h := sandboxHelpers(t); len(h) > helpers {
		t.Errorf("helpers started for full access: %v", h)
	}
}
