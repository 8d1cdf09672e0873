package terminal

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hermes-go/hermes/sandbox"
	"github.com/hermes-go/hermes/sandbox/sandboxtest"
	"github.com/hermes-go/hermes/tool"
	"golang.org/x/sys/unix"
)

// jail is a workspace, a fake home and a victim directory under
// t.TempDir(), and a terminal sandboxed to the workspace.
type jail struct {
	ws, home, victim string
	term             *Terminal
}

func newJail(t *testing.T, mode sandbox.Mode) *jail {
	t.Helper()
	base := sandbox.Resolve(t.TempDir())
	j := &jail{ws: filepath.Join(base, "work"), home: filepath.Join(base, "home"), victim: filepath.Join(base, "victim")}
	for _, f := range []string{"work/sub/file", "home/.bashrc", "home/.hermes/.env", "victim/file"} {
		p := filepath.Join(base, f)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte("original\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	p, err := sandbox.NewPolicy(sandbox.Options{Mode: mode, Workdir: j.ws, Home: j.home, HermesHome: filepath.Join(j.home, ".hermes"), Scratch: []string{filepath.Join(base, "tmp")}})
	if err != nil {
		t.Fatal(err)
	}
	if e := p.Enforcement(); e.Level != sandbox.Full {
		t.Skipf("this system cannot enforce the sandbox: %s", e)
	}
	j.term = newTerm(t, Options{Dir: j.ws, Sandbox: &p})
	return j
}

func (j *jail) unchanged(t *testing.T, files ...string) {
	t.Helper()
	for _, f := range files {
		if b, err := os.ReadFile(f); err != nil || string(b) != "original\n" {
			t.Errorf("%s changed: %q %v", f, b, err)
		}
	}
}

func TestSandboxedCommandsWriteOnlyInsideTheWorkspace(t *testing.T) {
	j := newJail(t, sandbox.WorkspaceWrite)
	tt := j.term.TerminalTool()
	res := run(t, tt, "t", map[string]any{"command": "echo new > sub/file && cat sub/file"})
	if !strings.HasPrefix(res.Content, "exit code: 0") || section(res.Content, "stdout") != "new\n" {
		t.Fatalf("a write inside the workspace must work:\n%s", res.Content)
	}
	for _, victim := range []string{filepath.Join(j.victim, "file"), filepath.Join(j.home, ".bashrc")} {
		res = run(t, tt, "t", map[string]any{"command": "echo pwned > " + victim})
		if strings.HasPrefix(res.Content, "exit code: 0") || !refused(res.Content) {
			t.Errorf("a write to %s went through:\n%s", victim, res.Content)
		}
	}
	j.unchanged(t, filepath.Join(j.victim, "file"), filepath.Join(j.home, ".bashrc"))
	res = run(t, tt, "t", map[string]any{"command": "cat " + filepath.Join(j.home, ".hermes", ".env")})
	if strings.Contains(res.Content, "original") {
		t.Errorf("HERMES_HOME is readable:\n%s", res.Content)
	}
}

func TestSandboxedWorkingDirectoryPersistsInReadOnlyMode(t *testing.T) {
	j := newJail(t, sandbox.ReadOnly)
	tt := j.term.TerminalTool()
	res := run(t, tt, "t", map[string]any{"command": "cd sub && echo pwned > file"})
	if strings.HasPrefix(res.Content, "exit code: 0") {
		t.Errorf("read-only mode let a write through:\n%s", res.Content)
	}
	j.unchanged(t, filepath.Join(j.ws, "sub", "file"))
	if got := j.term.Workdir("t"); got != filepath.Join(j.ws, "sub") {
		t.Errorf("the cd was lost: %s", got)
	}
}

func TestSandboxedBackgroundProcessesAreSandboxedAndKillable(t *testing.T) {
	j := newJail(t, sandbox.WorkspaceWrite)
	victim := filepath.Join(j.victim, "file")
	id := startBG(t, j.term, "t", "echo pwned > "+victim+"; echo exit=$?; echo inside > sub/bg")
	res := run(t, j.term.ProcessTool(), "t", map[string]any{"action": "wait", "id": id, "timeout": 60})
	if !strings.Contains(res.Content, "exited with code 0") {
		t.Fatalf("wait: %s", res.Content)
	}
	res = run(t, j.term.ProcessTool(), "t", map[string]any{"action": "log", "id": id})
	if !strings.Contains(res.Content, "exit=1") || !refused(res.Content) {
		t.Errorf("the background write outside the workspace was not refused:\n%s", res.Content)
	}
	j.unchanged(t, victim)
	if b, _ := os.ReadFile(filepath.Join(j.ws, "sub", "bg")); string(b) != "inside\n" {
		t.Errorf("the background write inside the workspace did not land: %q", b)
	}

	id = startBG(t, j.term, "t", "sleep 1000")
	p, _ := j.term.procs.get(id)
	run(t, j.term.ProcessTool(), "t", map[string]any{"action": "kill", "id": id})
	<-p.done
}

func TestSandboxedCommandsAreKilledWithTheirGroupOnCancel(t *testing.T) {
	j := newJail(t, sandbox.WorkspaceWrite)
	fifo := filepath.Join(j.ws, "pid")
	if err := unix.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan tool.Result)
	go func() {
		done <- runCtx(t, ctx, j.term.TerminalTool(), "t", map[string]any{"command": "sleep 1000 & echo $! > pid; wait"})
	}()
	// Reading the FIFO waits for the command to write the child's pid.
	pids := make(chan string, 1)
	go func() {
		b, _ := os.ReadFile(fifo)
		pids <- string(b)
	}()
	var pid int
	select {
	case s := <-pids:
		pid, _ = strconv.Atoi(strings.TrimSpace(s))
	case res := <-done:
		// Let the reader go before failing.
		if f, err := os.OpenFile(fifo, os.O_WRONLY|unix.O_NONBLOCK, 0); err == nil {
			f.Close()
		}
		t.Fatalf("the command ended before it started its child:\n%s", res.Content)
	}
	pidfd, err := unix.PidfdOpen(pid, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(pidfd)
	cancel()
	if res := <-done; !res.IsError || !strings.Contains(res.Content, "cancelled") {
		t.Fatalf("got:\n%s", res.Content)
	}
	// The pidfd turns readable when the child has exited.
	fds := []unix.PollFd{{Fd: int32(pidfd), Events: unix.POLLIN}}
	if n, err := unix.Poll(fds, int((time.Minute).Milliseconds())); n != 1 || err != nil {
		t.Fatalf("the command's child survived the cancel: %d %v", n, err)
	}
}

func TestASandboxThatCannotBeAppliedIsAToolError(t *testing.T) {
	term := newTerm(t, Options{Sandbox: &sandbox.Policy{Mode: "bogus"}})
	for _, bg := range []bool{false, true} {
		res := run(t, term.TerminalTool(), "t", map[string]any{"command": "true", "background": bg})
		if !res.IsError || !strings.Contains(res.Content, "bogus") {
			t.Errorf("background %v: %s", bg, res.Content)
		}
	}
}

func TestTheToolDescriptionStatesTheSandbox(t *testing.T) {
	j := newJail(t, sandbox.WorkspaceWrite)
	if d := j.term.TerminalTool().Spec().Description; !strings.Contains(d, "Sandbox: writes only under "+j.ws) {
		t.Errorf("the description does not state the sandbox:\n%s", d)
	}
	if d := j.term.TerminalTool().Spec().Description; !strings.Contains(d, "The network reaches only allowed hosts") {
		t.Errorf("the description does not state the network allowlist:\n%s", d)
	}
	ro := newJail(t, sandbox.ReadOnly)
	if d := ro.term.TerminalTool().Spec().Description; !strings.Contains(d, "Sandbox: read-only") {
		t.Errorf("read-only: the description does not say so:\n%s", d)
	}
	if d := ro.term.TerminalTool().Spec().Description; !strings.Contains(d, "The network is off.") {
		t.Errorf("read-only: the description does not say the network is off:\n%s", d)
	}
	if d := newTerm(t, Options{}).TerminalTool().Spec().Description; strings.Contains(strings.ToLower(d), "sandbox") {
		t.Errorf("an unsandboxed terminal claims a sandbox:\n%s", d)
	}
}

// refused reports whether out shows a write the sandbox refused: outside
// the writable roots a read-only mount, or Landlock where there is no
// mount namespace.
func refused(out string) bool {
	return strings.Contains(out, "Read-only file system") || strings.Contains(out, "Permission denied")
}

// A Terminal given a Runner starts its commands through it, in the
// namespaces of that Runner's helper, and leaves it running when it
// closes: the Runner is its owner's, who starts other commands with it.
func TestATerminalUsesTheRunnerItIsGivenAndLeavesItRunning(t *testing.T) {
	j := newJail(t, sandbox.WorkspaceWrite)
	// The shell's working-directory file in a writable root: the helper
	// can start the command (see sandbox.Runner).
	scratch := filepath.Join(filepath.Dir(j.ws), "tmp")
	os.MkdirAll(scratch, 0o755)
	t.Setenv("TMPDIR", scratch)
	p := *j.term.opts.Sandbox
	r := p.NewRunner()
	t.Cleanup(func() { r.Close() })
	term := New(Options{Dir: j.ws, Sandbox: &p, Runner: r})
	res := run(t, term.TerminalTool(), "t", map[string]any{"command": "readlink /proc/self/ns/mnt"})
	got := strings.TrimSpace(section(res.Content, "stdout"))
	if want := sandboxtest.RunnerNamespace(t, r); got != want {
		t.Fatalf("the terminal's command ran in %q, not in the runner's helper's %s:\n%s", got, want, res.Content)
	}
	term.Close()
	sandboxtest.RunnerNamespace(t, r)
}

// Commands leave the temporary directory itself unchanged (their
// working-directory files go in a directory of the user's own there),
// so that the next workspace's sandbox can keep its listing; the working
// directory still follows `cd` under the sandbox.
func TestCommandsLeaveTheTemporaryDirectoryUnchanged(t *testing.T) {
	tmp := sandbox.Resolve(t.TempDir())
	t.Setenv("TMPDIR", tmp)
	base := sandbox.Resolve(t.TempDir())
	ws := filepath.Join(base, "work")
	os.MkdirAll(filepath.Join(ws, "sub"), 0o755)
	p, err := sandbox.NewPolicy(sandbox.Options{Workdir: ws, Home: filepath.Join(base, "home"), Scratch: []string{tmp}})
	if err != nil {
		t.Fatal(err)
	}
	if e := p.Enforcement(); e.Level != sandbox.Full {
		t.Skipf("this system cannot enforce the sandbox: %s", e)
	}
	term := newTerm(t, Options{Dir: ws, Sandbox: &p})
	run(t, term.TerminalTool(), "a", map[string]any{"command": "cd sub"})
	old := time.Now().Add(-time.Hour).Truncate(time.Second)
	if err := os.Chtimes(tmp, old, old); err != nil {
		t.Fatal(err)
	}
	run(t, term.TerminalTool(), "a", map[string]any{"command": "cd .."})
	st, err := os.Stat(tmp)
	if err != nil {
		t.Fatal(err)
	}
	if !st.ModTime().Equal(old) {
		t.Errorf("a command changed the temporary directory (modified %s)", st.ModTime())
	}
	if got := term.Workdir("a"); got != ws {
		t.Errorf("working directory after cd sub, cd .. = %q, want %q", got, ws)
	}
}
