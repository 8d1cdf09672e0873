package sandbox

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"
)

// terminalParentEnv makes the test binary stand in for hermes running
// in a terminal: started with a pseudo-terminal as its controlling
// terminal and standard streams, it runs one sandboxed command the way
// the terminal tool does and reports what became of its terminal.
const terminalParentEnv = "HERMES_SANDBOX_TEST_TERMINAL_PARENT"

func init() { testRoles[terminalParentEnv] = runTerminalParent }

type terminalRun struct {
	Policy Policy
	Status Status
	Script string
	Args   []string
	Report string
	// Runner: through a Runner's helper rather than Wrap.
	Runner bool
}

type terminalReport struct {
	Output   string
	Code     int
	Sid      int
	Injected string
	Err      string
}

// runTerminalParent is the stand-in: it never returns.
func runTerminalParent(spec string) {
	var run terminalRun
	rep := terminalReport{Sid: -1}
	err := json.Unmarshal([]byte(spec), &run)
	if err == nil {
		rep, err = run.run()
	}
	if err != nil {
		rep.Err = err.Error()
	}
	b, _ := json.Marshal(rep)
	if err := os.WriteFile(run.Report, b, 0o644); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	os.Exit(0)
}

func (run terminalRun) run() (terminalReport, error) {
	rep := terminalReport{}
	sid, err := unix.Getsid(0)
	if err != nil {
		return rep, err
	}
	rep.Sid = sid
	// Whatever lands in the terminal's input queue is read at once below.
	tio, err := unix.IoctlGetTermios(0, unix.TCGETS)
	if err != nil {
		return rep, fmt.Errorf("standard input is not the terminal: %w", err)
	}
	tio.Lflag &^= unix.ICANON | unix.ECHO
	tio.Cc[unix.VMIN], tio.Cc[unix.VTIME] = 0, 0
	if err := unix.IoctlSetTermios(0, unix.TCSETS, tio); err != nil {
		return rep, err
	}
	cmd := exec.Command("bash", append([]string{"-c", run.Script, "bash"}, run.Args...)...)
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "LC_ALL=C"}
	// As the terminal tool starts a command: its own process group.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	var out []byte
	if run.Runner {
		out, err = combinedThroughRunner(run.Policy, cmd)
	} else {
		if err := run.Policy.wrapWith(cmd, run.Status, nil, nil); err != nil {
			return rep, err
		}
		out, err = cmd.CombinedOutput()
	}
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		return rep, err
	}
	rep.Output, rep.Code = string(out), cmd.ProcessState.ExitCode()
	buf := make([]byte, 256)
	n, err := unix.Read(0, buf)
	if err != nil {
		return rep, fmt.Errorf("read the terminal: %w", err)
	}
	rep.Injected = string(buf[:n])
	return rep, nil
}

// inTerminal runs script sandboxed by p under a stand-in for hermes whose
// controlling terminal is a fresh pseudo-terminal; it returns the report
// and the terminal's path.
func inTerminal(t *testing.T, st Status, p Policy, script string) (terminalReport, string) {
	t.Helper()
	return inTerminalVia(t, st, p, script, false)
}

// inTerminalVia is inTerminal, through a Runner if runner.
func inTerminalVia(t *testing.T, st Status, p Policy, script string, runner bool) (terminalReport, string) {
	t.Helper()
	ptmx, pts := openPTY(t)
	defer ptmx.Close()
	defer pts.Close()
	report := filepath.Join(t.TempDir(), "report.json")
	spec, _ := json.Marshal(terminalRun{Policy: p, Status: st, Script: script, Args: []string{pts.Name()}, Report: report, Runner: runner})
	parent := exec.Command(os.Args[0], "-test.run=^$")
	parent.Env = append(os.Environ(), terminalParentEnv+"="+string(spec))
	parent.Stdin, parent.Stdout, parent.Stderr = pts, pts, pts
	parent.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}
	if err := parent.Run(); err != nil {
		t.Fatalf("the stand-in for hermes: %v", err)
	}
	var rep terminalReport
	if b, err := os.ReadFile(report); err != nil || json.Unmarshal(b, &rep) != nil {
		t.Fatalf("no report from the stand-in for hermes: %v", err)
	}
	if rep.Err != "" {
		t.Fatalf("the stand-in for hermes: %s", rep.Err)
	}
	return rep, pts.Name()
}

func openPTY(t *testing.T) (ptmx, pts *os.File) {
	t.Helper()
	m, err := os.OpenFile("/dev/ptmx", os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pseudo-terminals here: %v", err)
	}
	if err := unix.IoctlSetPointerInt(int(m.Fd()), unix.TIOCSPTLCK, 0); err != nil {
		m.Close()
		t.Fatalf("unlockpt: %v", err)
	}
	n, err := unix.IoctlGetInt(int(m.Fd()), unix.TIOCGPTN)
	if err != nil {
		m.Close()
		t.Fatalf("ptsname: %v", err)
	}
	s, err := os.OpenFile("/dev/pts/"+strconv.Itoa(n), os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		m.Close()
		t.Fatalf("open the pseudo-terminal: %v", err)
	}
	return m, s
}

// sessionAndTTY reads the session id and tty_nr of the shell from
// /proc/self/stat (fields 6 and 7; bash's name has no space).
const sessionAndTTY = `read -r _ _ _ _ _ sid tty _ < /proc/$$/stat; echo "session=$sid tty=$tty"`

// inject tries every way a command could push a line into a terminal's
// input: /dev/tty, the terminal hermes runs in by its path ($1), and a
// pseudo-terminal the command creates for itself, as its controlling
// terminal.
const inject = `import errno, fcntl, os, pty, sys, termios

def sti(path):
    try:
        fd = os.open(path, os.O_RDWR | os.O_NOCTTY)
    except OSError as e:
        return "open " + errno.errorcode[e.errno]
    try:
        for c in b"echo INJECTED\n":
            fcntl.ioctl(fd, termios.TIOCSTI, bytes([c]))
        return "injected"
    except OSError as e:
        return "ioctl " + errno.errorcode[e.errno]

print("/dev/tty:", sti("/dev/tty"))
print("hermes terminal:", sti(sys.argv[1]))
sys.stdout.flush()
pid, fd = pty.fork()
if pid == 0:
    try:
        fcntl.ioctl(0, termios.TIOCSTI, b"x")
        print("own terminal: injected")
    except OSError as e:
        print("own terminal: ioctl", errno.errorcode[e.errno])
    try:
        fcntl.ioctl(0, 0x541C, b"\x02")  # TIOCLINUX, TIOCL_SETSEL
        print("TIOCLINUX: allowed")
    except OSError as e:
        print("TIOCLINUX:", errno.errorcode[e.errno])
    sys.stdout.flush()
    os._exit(0)
out = b""
while True:
    try:
        b = os.read(fd, 1024)
    except OSError:
        break
    if not b:
        break
    out += b
os.waitpid(pid, 0)
print(out.decode(errors="replace").strip())
`

func TestACommandCannotReachTheTerminalHermesRunsIn(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 not installed")
	}
	b := newBox(t)
	p := b.policy(t, WorkspaceWrite)
	rep, tty := inTerminalVia(t, Probe(), p, sessionAndTTY+"\npython3 -c '"+inject+"' \"$1\"", throughRunner)
	t.Logf("the command printed:\n%s", rep.Output)
	if rep.Injected != "" {
		t.Errorf("the command typed %q into the terminal hermes runs in", rep.Injected)
	}
	if want := fmt.Sprintf("session=%d ", rep.Sid); strings.Contains(rep.Output, want) || !strings.Contains(rep.Output, "session=") {
		t.Errorf("the command runs in hermes' session %d", rep.Sid)
	}
	if !strings.Contains(rep.Output, "tty=0\n") {
		t.Errorf("the command has a controlling terminal")
	}
	for _, want := range []string{"/dev/tty: open ENXIO", "hermes terminal: open ENOENT", "own terminal: ioctl EPERM", "TIOCLINUX: EPERM"} {
		if !strings.Contains(rep.Output, want) {
			t.Errorf("want %q (%s is hermes' terminal)", want, tty)
		}
	}
}

func TestWithoutMountsLandlockStillRefusesIoctlsOnHermesTerminal(t *testing.T) {
	if Probe().LandlockABI < abiIoctlDev {
		t.Skip("device ioctls need Landlock ABI 5")
	}
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 not installed")
	}
	st := Probe()
	st.MountNamespace = false
	b := newBox(t)
	p := b.policy(t, WorkspaceWrite)
	getattr := `python3 -c '
import errno, os, sys, termios
fd = os.open(sys.argv[1], os.O_RDWR | os.O_NOCTTY)
try:
    termios.tcgetattr(fd)
    print("tcgetattr: allowed")
except termios.error as e:
    print("tcgetattr:", errno.errorcode[e.args[0]])
' "$1"`
	rep, _ := inTerminal(t, st, p, getattr)
	if rep.Injected != "" || !strings.Contains(rep.Output, "tcgetattr: EACCES") {
		t.Errorf("without its own pseudo-terminals a command made an ioctl on hermes' terminal:\n%s", rep.Output)
	}
}

func TestPseudoTerminalsWorkInTheSandbox(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 not installed")
	}
	b := newBox(t)
	p := b.policy(t, WorkspaceWrite)
	// A program that needs a terminal (script, expect, ssh -t) makes one.
	out, code := b.run(t, p, "", `python3 -c '
import os, pty, sys
sys.stdout.flush()
pid, fd = pty.fork()
if pid == 0:
    print("tty" if os.isatty(0) else "no tty", os.ttyname(0))
    sys.stdout.flush()
    os._exit(0)
print(os.read(fd, 100).decode().strip())
os.waitpid(pid, 0)
'`)
	if code != 0 || !strings.Contains(out, "tty /dev/pts/") {
		t.Errorf("a command could not make a pseudo-terminal of its own (exit %d):\n%s", code, out)
	}
}

func TestACommandRunsInASessionOfItsOwn(t *testing.T) {
	b := newBox(t)
	p := b.policy(t, WorkspaceWrite)
	sid, err := unix.Getsid(0)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("bash", "-c", `read -r _ _ _ _ pgid sid tty _ < /proc/$$/stat; echo "$$ $pgid $sid $tty"`)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := p.Wrap(cmd); err != nil {
		t.Fatal(err)
	}
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	f := strings.Fields(string(out))
	pid := strconv.Itoa(cmd.Process.Pid)
	// Its own session and process group, both led by it: killing the
	// group kills what it started.
	if len(f) != 4 || f[0] != pid || f[1] != pid || f[2] != pid || f[2] == strconv.Itoa(sid) || f[3] != "0" {
		t.Errorf("pid, process group, session, tty = %q; want %s %s %s 0", f, pid, pid, pid)
	}
}

func TestWrapRefusesATerminalAsAStandardStream(t *testing.T) {
	b := newBox(t)
	p := b.policy(t, WorkspaceWrite)
	ptmx, pts := openPTY(t)
	defer ptmx.Close()
	defer pts.Close()
	for _, set := range []func(*exec.Cmd){
		func(c *exec.Cmd) { c.Stdin = pts },
		func(c *exec.Cmd) { c.Stdout = pts },
		func(c *exec.Cmd) { c.Stderr = pts },
		func(c *exec.Cmd) { c.ExtraFiles = []*os.File{pts} },
	} {
		cmd := exec.Command("true")
		set(cmd)
		if err := p.Wrap(cmd); err == nil || !strings.Contains(err.Error(), "terminal") {
			t.Errorf("Wrap of a command holding a terminal: %v", err)
		}
	}
	for _, attr := range []*syscall.SysProcAttr{{Setpgid: true, Pgid: os.Getpid()}, {Setsid: true, Setctty: true}, {Foreground: true}} {
		cmd := exec.Command("true")
		cmd.SysProcAttr = attr
		if err := p.Wrap(cmd); err == nil {
			t.Errorf("Wrap let a command join another process group or take a terminal: %+v", attr)
		}
	}
}
