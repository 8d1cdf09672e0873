package sandbox

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// sharedRunners are two Runners, for two workspaces, whose lanes share
// one zygote; the test skips where this system gives each its own.
func sharedRunners(t *testing.T) (*box, *Runner, *box, *Runner) {
	t.Helper()
	a, b := newBox(t), newBox(t)
	ra, rb := readyRunner(t, a.policy(t, WorkspaceWrite)), readyRunner(t, b.policy(t, WorkspaceWrite))
	if !shareZygote(Probe()) {
		t.Skip("no Landlock signal scope or no signal filter here: each Runner has a helper of its own")
	}
	return a, ra, b, rb
}

func TestRunnersShareOneHelperProcess(t *testing.T) {
	_, ra, _, rb := sharedRunners(t)
	if ra.h.z != rb.h.z {
		t.Fatalf("two Runners started two helpers (pids %d and %d)", ra.h.z.pid, rb.h.z.pid)
	}
	// Each lane is a thread of the one helper, in a mount namespace of its
	// own.
	nsA, _ := runIn(t, ra, `readlink /proc/self/ns/mnt`)
	nsB, _ := runIn(t, rb, `readlink /proc/self/ns/mnt`)
	if nsA == "" || nsA == nsB {
		t.Errorf("the lanes share a mount namespace: %q and %q", nsA, nsB)
	}
	before := helperProcesses(t)
	if before == 0 {
		t.Fatal("no helper process found among this process's children")
	}
	rc := readyRunner(t, newBox(t).policy(t, WorkspaceWrite))
	if rc.h.z != ra.h.z || helperProcesses(t) != before {
		t.Error("a third Runner started a helper process of its own")
	}
}

// helperProcesses counts this process's children that are zygotes.
func helperProcesses(t *testing.T) int {
	t.Helper()
	tasks, err := filepath.Glob("/proc/self/task/*/children")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, f := range tasks {
		b, _ := os.ReadFile(f)
		for _, pid := range strings.Fields(string(b)) {
			cmdline, _ := os.ReadFile(filepath.Join("/proc", pid, "cmdline"))
			if string(cmdline) == helperPath+"\x00"+helperArg+"\x00" {
				n++
			}
		}
	}
	return n
}

func TestLanesCannotReachEachOther(t *testing.T) {
	a, ra, b, rb := sharedRunners(t)
	target := filepath.Join(b.ws, "file")
	if out, code := runIn(t, ra, `echo x > "$1"`, target); code == 0 || changed(target) {
		t.Errorf("a command wrote another lane's workspace (exit %d):\n%s", code, out)
	}
	// A command of one lane cannot signal a command of another.
	pidFile := filepath.Join(b.ws, "pid")
	sleeper := exec.Command("bash", "-c", `echo $$ > "$1"; exec sleep 1000`, "bash", pidFile)
	wait, err := rb.Start(context.Background(), sleeper, StartOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { syscall.Kill(sleeper.Process.Pid, syscall.SIGKILL); wait() }()
	pid := awaitPid(t, pidFile)
	if out, code := runIn(t, ra, `kill -KILL "$1"`, strconv.Itoa(pid)); code == 0 {
		t.Errorf("a command killed another lane's command:\n%s", out)
	}
	if err := syscall.Kill(pid, 0); err != nil {
		t.Errorf("the other lane's command is gone: %v", err)
	}
	_ = a
}

func TestACommandCannotSignalItsLaneOrTheHelper(t *testing.T) {
	_, ra, _, rb := sharedRunners(t)
	z := strconv.Itoa(ra.h.z.pid)
	// Every thread of the helper, by every call that names a process or a
	// thread: kill, tkill, tgkill, rt_(tg)sigqueueinfo, a pidfd, and
	// F_SETSIG on a file it owns.
	script := `
for t in /proc/$1/task/*; do
	t=${t##*/}
	perl -e '$r = syscall(234, 0+$ARGV[0], 0+$ARGV[1], 19); print "tgkill $ARGV[1] went through\n" if $r == 0' $1 $t
	perl -e '$r = syscall(434, 0+$ARGV[0], 0); print "pidfd_open $ARGV[0] went through\n" if $r >= 0' $t
	perl -e '$r = syscall(200, 0+$ARGV[0], 19); print "tkill $ARGV[0] went through\n" if $r == 0' $t
	perl -e '$i = pack("iii", 19, 0, -1) . ("\0" x 116); $r = syscall(129, 0+$ARGV[0], 19, $i); print "rt_sigqueueinfo $ARGV[0] went through\n" if $r == 0' $t
	perl -e '$i = pack("iii", 19, 0, -1) . ("\0" x 116); $r = syscall(297, 0+$ARGV[0], 0+$ARGV[1], 19, $i); print "rt_tgsigqueueinfo $ARGV[1] went through\n" if $r == 0' $1 $t
	for sig in TSTP TERM STOP KILL; do kill -$sig $t 2>/dev/null && echo "kill -$sig $t went through"; done
done
perl -e 'open(F, "<", "/dev/null") or die; $r = fcntl(F, 10, 0+9); print "F_SETSIG went through\n" if $r'
echo done`
	out, _ := runIn(t, ra, script, z)
	if strings.Contains(out, "went through") || !strings.Contains(out, "done") {
		t.Errorf("a command signalled the helper:\n%s", out)
	}
	if ra.h.z.stopped() || ra.h.z.exited() {
		t.Fatal("the helper is stopped or gone")
	}
	for _, r := range []*Runner{ra, rb} {
		if out, code := runIn(t, r, `echo still`); code != 0 || out != "still\n" {
			t.Errorf("a lane does not serve any more (exit %d):\n%s", code, out)
		}
	}
}

func TestACommandIgnoresNoSignalHermesDoesNot(t *testing.T) {
	b := newBox(t)
	r := readyRunner(t, b.policy(t, WorkspaceWrite))
	// The helper catches the signals that would stop it; ignoring them
	// instead would leave every command ignoring them (kill would not end
	// a command's child).
	direct, err := exec.Command("grep", "SigIgn", "/proc/self/status").Output()
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	cmd := exec.Command("grep", "SigIgn", "/proc/self/status")
	cmd.Stdout = &out
	wait, err := r.Start(context.Background(), cmd, StartOptions{})
	if err == nil {
		err = wait()
	}
	if err != nil || out.String() != string(direct) {
		t.Errorf("through the Runner: %q (%v), started directly: %q", out.String(), err, direct)
	}
}

func TestAHelperThatDiedIsReplaced(t *testing.T) {
	b := newBox(t)
	r := readyRunner(t, b.policy(t, WorkspaceWrite))
	old := r.h.z
	old.cmd.Process.Kill()
	<-old.done
	var out bytes.Buffer
	cmd := exec.Command("echo", "again")
	cmd.Stdout = &out
	wait, err := r.Start(context.Background(), cmd, StartOptions{})
	if err == nil {
		err = wait()
	}
	if err != nil || out.String() != "again\n" {
		t.Fatalf("after the helper died: %v, %q", err, out.String())
	}
	if r.h == nil || r.h.z == old {
		t.Error("the command did not go through a new helper")
	}
}

// Without Landlock's signal scope (before ABI 6) a command could signal
// its lane's helper process: each Runner then gets a helper of its own,
// which ends with it.
func TestWithoutTheSignalScopeEachRunnerHasAHelperOfItsOwn(t *testing.T) {
	b := newBox(t)
	p := b.policy(t, WorkspaceWrite)
	st := Probe()
	if st.LandlockABI < abiScope {
		t.Skip("this kernel has no signal scope: covered by every Runner test")
	}
	st.LandlockABI = abiScope - 1
	if shareZygote(st) {
		t.Fatal("a helper is shared without the signal scope")
	}
	h1, err := startHelper(p, st)
	if err != nil {
		t.Fatal(err)
	}
	h2, err := startHelper(p, st)
	if err != nil {
		t.Fatal(err)
	}
	if h1.z == h2.z || !h1.own || !h2.own {
		t.Fatalf("two Runners share helper %d", h1.z.pid)
	}
	h1.close()
	select {
	case <-h1.z.done:
	case <-time.After(helperTimeout):
		t.Error("a Runner's own helper outlived it")
	}
	h2.close()
}
