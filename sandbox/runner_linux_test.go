package sandbox

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// throughRunner makes box.run start its commands through a Runner.
var throughRunner bool

func funcName(f func(*testing.T)) string {
	name := runtime.FuncForPC(reflect.ValueOf(f).Pointer()).Name()
	return name[strings.LastIndex(name, ".")+1:]
}

// readyRunner is a Runner for p whose helper is running.
func readyRunner(t testing.TB, p Policy) *Runner {
	t.Helper()
	r := p.NewRunner()
	t.Cleanup(func() { r.Close() })
	if p.Mode != FullAccess && r.helperFor(p, nil) == nil {
		t.Fatalf("no sandbox helper: %v", r.why)
	}
	return r
}

// runThroughRunner is box.run through a Runner's helper.
func (b *box) runThroughRunner(t *testing.T, p Policy, dir, script string, args ...string) (string, int) {
	t.Helper()
	r := readyRunner(t, p)
	cmd := exec.Command("bash", append([]string{"-c", script, "bash"}, args...)...)
	cmd.Dir = b.ws
	if dir != "" {
		cmd.Dir = dir
	}
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + b.home, "LC_ALL=C"}
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	wait, err := r.Start(context.Background(), cmd, StartOptions{})
	if err != nil {
		t.Fatalf("start %q: %v", script, err)
	}
	err = wait()
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		t.Fatalf("run %q: %v", script, err)
	}
	return out.String(), cmd.ProcessState.ExitCode()
}

// combinedThroughRunner is cmd.CombinedOutput through a Runner for p.
func combinedThroughRunner(p Policy, cmd *exec.Cmd) ([]byte, error) {
	r := p.NewRunner()
	defer r.Close()
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	wait, err := r.Start(context.Background(), cmd, StartOptions{})
	if err != nil {
		return nil, err
	}
	err = wait()
	return out.Bytes(), err
}

// Every boundary test that runs commands through box.run holds through a
// Runner's long-lived helper too.
func TestTheBoundaryHoldsThroughTheRunner(t *testing.T) {
	throughRunner = true
	defer func() { throughRunner = false }()
	for _, test := range []func(*testing.T){
		TestWritesOutsideTheWritableRootsFailWhateverTheCommand,
		TestOutsideTheWritableRootsNothingIsCreatedOrRemoved,
		TestWritesInsideTheWritableRootsWork,
		TestGitHooksGitConfigAndHermesStayReadOnlyInTheWorkspace,
		TestNoHookCanBeAddedWhereNoneWas,
		TestAWorkspaceInsideAnotherWritableRootCannotBeSwappedForItsHooks,
		TestStartUpFilesStayReadOnlyWhenTheHomeIsWritable,
		TestHiddenPathsCannotBeRead,
		TestHiddenSocketsCannotBeReached,
		TestACommandReachesNoSocketOfTheTemporaryDirectories,
		TestOtherProcessesEnvironmentAndMemoryAreOutOfReach,
		TestReadOnlyModeBlocksWorkspaceWrites,
		TestNetworkOffBlocksUDP,
		TestNetworkOffBlocksMultipathTCP,
		TestFullAccessDoesNotRestrict,
		TestSignalsReachOnlyTheCommandsOwnProcesses,
		TestTheCommandHoldsNoPrivilegeOverTheHost,
		TestMountsDoNotReachTheHost,
		TestTheHelperRemovesThePlanFromTheEnvironment,
		TestTheCommandHoldsNoCapabilities,
		TestMetadataOutsideTheWritableRootsIsReadOnly,
		TestOnlyOrdinaryDevicesOpen,
		TestPseudoTerminalsWorkInTheSandbox,
		TestACommandCannotReachTheTerminalHermesRunsIn,
		TestAllowedDomainsAreReachedThroughTheProxyAndOthersRefused,
		TestACommandThatIgnoresTheProxyReachesNothing,
		TestTheProxyVariablesPointAtTheProxyAndLoopbackStaysLocal,
		TestADomainTheUserAllowsForTheSessionIsAskedOnce,
		TestTheProxyEndsWithTheCommand,
	} {
		name := strings.TrimPrefix(funcName(test), "Test")
		t.Run(name, test)
	}
}

func TestARunnerCommandIsHermesChildInASessionOfItsOwn(t *testing.T) {
	b := newBox(t)
	p := b.policy(t, WorkspaceWrite)
	r := readyRunner(t, p)
	cmd := exec.Command("bash", "-c", `read -r _ _ _ ppid pgid sid tty _ < /proc/$$/stat; echo "$$ $ppid $pgid $sid $tty"`)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	var out bytes.Buffer
	cmd.Stdout = &out
	wait, err := r.Start(context.Background(), cmd, StartOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := wait(); err != nil {
		t.Fatal(err)
	}
	f := strings.Fields(out.String())
	pid := strconv.Itoa(cmd.Process.Pid)
	if len(f) != 5 || f[0] != pid || f[1] != strconv.Itoa(os.Getpid()) || f[2] != pid || f[3] != pid || f[4] != "0" {
		t.Errorf("pid, parent, process group, session, tty = %q; want %s %d %s %s 0", f, pid, os.Getpid(), pid, pid)
	}
}

func TestARunnerCommandCannotReachItsHelper(t *testing.T) {
	b := newBox(t)
	p := b.policy(t, WorkspaceWrite)
	r := readyRunner(t, p)
	helper := strconv.Itoa(r.h.z.pid)
	// Its descriptors hold every later command's streams; its memory the
	// requests.
	for _, script := range []string{`readlink /proc/$1/fd/3`, `exec 9</proc/$1/fd/3`, `cat /proc/$1/environ`, `head -c1 /proc/$1/mem`} {
		if out, code := runIn(t, r, script, helper); code == 0 {
			t.Errorf("%s: a command reached its helper:\n%s", script, out)
		}
	}
	if Probe().LandlockABI >= abiScope {
		if out, code := runIn(t, r, `kill -STOP "$1"`, helper); code == 0 {
			t.Errorf("a command stopped its helper:\n%s", out)
		}
	}
	if out, code := runIn(t, r, `echo still`); code != 0 || out != "still\n" {
		t.Errorf("the helper does not serve any more (exit %d):\n%s", code, out)
	}
}

// runIn runs script under bash through r; it returns the combined output
// and the exit code.
func runIn(t *testing.T, r *Runner, script string, args ...string) (string, int) {
	t.Helper()
	cmd := exec.Command("bash", append([]string{"-c", script, "bash"}, args...)...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	wait, err := r.Start(context.Background(), cmd, StartOptions{})
	if err != nil {
		t.Fatalf("start %q: %v", script, err)
	}
	if err := wait(); err != nil && !errors.As(err, new(*exec.ExitError)) {
		t.Fatalf("run %q: %v", script, err)
	}
	return out.String(), cmd.ProcessState.ExitCode()
}

func TestARunnerReportsExitCodesAndSignals(t *testing.T) {
	b := newBox(t)
	r := readyRunner(t, b.policy(t, WorkspaceWrite))
	if _, code := runIn(t, r, `exit 3`); code != 3 {
		t.Errorf("exit code %d, want 3", code)
	}
	cmd := exec.Command("bash", "-c", `kill -KILL $$`)
	wait, err := r.Start(context.Background(), cmd, StartOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var ee *exec.ExitError
	if err := wait(); !errors.As(err, &ee) || ee.ExitCode() != -1 || !strings.Contains(ee.String(), "killed") {
		t.Errorf("a killed command: %v, want an *exec.ExitError saying it was killed", err)
	}
	_, err = r.Start(context.Background(), exec.Command(filepath.Join(b.ws, "no-such-program")), StartOptions{})
	if !errors.Is(err, exec.ErrNotFound) {
		t.Errorf("a missing program: %v, want exec.ErrNotFound", err)
	}
}

func TestCancellingARunnerCommandKillsItsProcessGroup(t *testing.T) {
	b := newBox(t)
	r := readyRunner(t, b.policy(t, WorkspaceWrite))
	pidFile := filepath.Join(b.ws, "child.pid")
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.Command("bash", "-c", `sleep 1000 & echo $! > "$1"; wait`, "bash", pidFile)
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	wait, err := r.Start(ctx, cmd, StartOptions{})
	if err != nil {
		t.Fatal(err)
	}
	child := awaitPid(t, pidFile)
	cancel()
	if err := wait(); err == nil {
		t.Error("a cancelled command reported success")
	}
	if cmd.ProcessState.ExitCode() != -1 {
		t.Errorf("exit code %d, want -1 (killed)", cmd.ProcessState.ExitCode())
	}
	deadline := time.Now().Add(10 * time.Second)
	for unix.Kill(child, 0) == nil {
		if time.Now().After(deadline) {
			t.Fatalf("the command's child %d outlived the cancellation", child)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// awaitPid reads the pid a command writes to path, waiting for it with a
// deadline.
func awaitPid(t *testing.T, path string) int {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		if b, err := os.ReadFile(path); err == nil && strings.HasSuffix(string(b), "\n") {
			pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
			if err != nil {
				t.Fatal(err)
			}
			return pid
		}
		if time.Now().After(deadline) {
			t.Fatalf("no pid in %s", path)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func TestARunnerCommandsOutputOutlivingItEndsAfterWaitDelay(t *testing.T) {
	b := newBox(t)
	r := readyRunner(t, b.policy(t, WorkspaceWrite))
	cmd := exec.Command("bash", "-c", `echo before; sleep 1000 & echo after`)
	cmd.WaitDelay = 100 * time.Millisecond
	var out bytes.Buffer
	cmd.Stdout = &out
	wait, err := r.Start(context.Background(), cmd, StartOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	if err := wait(); !errors.Is(err, exec.ErrWaitDelay) {
		t.Errorf("wait: %v, want exec.ErrWaitDelay", err)
	}
	if cmd.ProcessState.ExitCode() != 0 || out.String() != "before\nafter\n" {
		t.Errorf("exit %d, output %q", cmd.ProcessState.ExitCode(), out.String())
	}
}

func TestASideFileOutsideTheWritableRootsGoesThroughWrap(t *testing.T) {
	b := newBox(t)
	p := b.policy(t, ReadOnly)
	r := readyRunner(t, p)
	side := filepath.Join(b.victim, "file")
	cmd := exec.Command("bash", "-c", `echo side > "$1"; echo other > "$2"`, "bash", side, filepath.Join(b.victim, "dir", "file"))
	wait, err := r.Start(context.Background(), cmd, StartOptions{Files: []string{side}})
	if err != nil {
		t.Fatal(err)
	}
	wait()
	if got := read(side); got != "side\n" {
		t.Errorf("the side file holds %q", got)
	}
	if changed(filepath.Join(b.victim, "dir", "file")) {
		t.Error("a file outside the side files was written")
	}
}

func TestAStoppedHelperFailsTheCommandAndIsReplacedOnce(t *testing.T) {
	defer func(old time.Duration) { helperTimeout = old }(helperTimeout)
	helperTimeout = 200 * time.Millisecond
	b := newBox(t)
	p := b.policy(t, WorkspaceWrite)
	r := readyRunner(t, p)
	marker := filepath.Join(b.ws, "ran")
	first := r.h
	if err := first.z.cmd.Process.Signal(syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	_, err := r.Start(context.Background(), exec.Command("touch", marker), StartOptions{})
	if !errors.Is(err, errHelperStopped) {
		t.Fatalf("a command for a stopped helper: %v, want the helper's failure", err)
	}
	if exists(marker) {
		t.Fatal("the command ran although its helper did not answer")
	}
	// The next command gets a new helper.
	if out, code := runIn(t, r, `echo again`); code != 0 || out != "again\n" || r.h == first {
		t.Fatalf("no new helper (exit %d):\n%s", code, out)
	}
	// When that one stops too, commands go through Wrap, sandboxed still.
	r.h.kill()
	out, code := runIn(t, r, `echo x > "$1"`, filepath.Join(b.victim, "file"))
	if code == 0 || changed(filepath.Join(b.victim, "file")) || r.h != nil {
		t.Errorf("after the helper stopped twice: exit %d, helper %v:\n%s", code, r.h, out)
	}
	if out, code := runIn(t, r, `echo wrapped`); code != 0 || out != "wrapped\n" {
		t.Errorf("through Wrap (exit %d):\n%s", code, out)
	}
}

func TestARunnerStartsManyCommandsAtOnce(t *testing.T) {
	b := newBox(t)
	r := readyRunner(t, b.policy(t, WorkspaceWrite))
	errs := make(chan error, 8)
	for i := range 8 {
		go func() {
			cmd := exec.Command("bash", "-c", `echo $1`, "bash", strconv.Itoa(i))
			var out bytes.Buffer
			cmd.Stdout = &out
			wait, err := r.Start(context.Background(), cmd, StartOptions{})
			if err == nil {
				err = wait()
			}
			if err == nil && out.String() != fmt.Sprintf("%d\n", i) {
				err = fmt.Errorf("command %d printed %q", i, out.String())
			}
			errs <- err
		}()
	}
	for range 8 {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
}

// A request longer than the lane's first buffer (here 150 KB of
// arguments) arrives whole; one past the socket's limit (1.2 MB) goes
// through Wrap, and either way the command gets its arguments unchanged.
func TestARunnerTakesLongCommands(t *testing.T) {
	b := newBox(t)
	r := readyRunner(t, b.policy(t, WorkspaceWrite))
	for _, c := range []struct{ n, size int }{{3, 50 << 10}, {12, 100 << 10}} {
		args := make([]string, c.n)
		for i := range args {
			args[i] = strings.Repeat("x", c.size)
		}
		out, code := runIn(t, r, `printf %s "$@" | wc -c`, args...)
		if code != 0 || strings.TrimSpace(out) != strconv.Itoa(c.n*c.size) {
			t.Errorf("%d arguments of %d bytes: exit %d, %q", c.n, c.size, code, out)
		}
	}
	if out, code := runIn(t, r, `echo short`); code != 0 || out != "short\n" {
		t.Errorf("after long commands (exit %d): %q", code, out)
	}
}
