package e2e

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"unsafe"
)

// hermesTTY runs hermes with a pseudo-terminal as standard input, the
// answer already typed; stdout and stderr are captured apart.
func hermesTTY(t *testing.T, answer, home, workdir string, args ...string) result {
	t.Helper()
	master, slave := openPTY(t)
	defer master.Close()
	defer slave.Close()
	if _, err := master.WriteString(answer); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(hermesBin, args...)
	cmd.Dir = workdir
	cmd.Stdin = slave
	cmd.Env = []string{"HOME=" + home, "HERMES_HOME=" + home, "PATH=" + os.Getenv("PATH"), "HERMES_LOCAL_PORTS=none"}
	return run(t, cmd)
}

func openPTY(t testing.TB) (master, slave *os.File) {
	t.Helper()
	m, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pseudo-terminals here: %v", err)
	}
	var unlock int32
	if _, _, errno := syscall.Syscall(syscall.SYS_IOCTL, m.Fd(), syscall.TIOCSPTLCK, uintptr(unsafe.Pointer(&unlock))); errno != 0 {
		m.Close()
		t.Skipf("unlockpt: %v", errno)
	}
	var n uint32
	if _, _, errno := syscall.Syscall(syscall.SYS_IOCTL, m.Fd(), syscall.TIOCGPTN, uintptr(unsafe.Pointer(&n))); errno != 0 {
		m.Close()
		t.Skipf("ptsname: %v", errno)
	}
	s, err := os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		m.Close()
		t.Skipf("open pts: %v", err)
	}
	return m, s
}

// On a terminal, delete and prune ask; only y deletes.
func TestDestructiveSessionCommandsAskOnATerminal(t *testing.T) {
	home := t.TempDir()
	ids := storeSessions(t, home, 3)
	r := hermesTTY(t, "n\n", home, home, "sessions", "delete", ids[0])
	if r.code != 1 || !contains(r.stderr, "Delete session "+ids[0], "messages", "[y/N]", "nothing was deleted") {
		t.Fatalf("answer n: exit %d stderr %q", r.code, r.stderr)
	}
	if r := hermesTTY(t, "\n", home, home, "sessions", "delete", ids[0]); r.code != 1 {
		t.Fatalf("empty answer: exit %d stderr %q", r.code, r.stderr)
	}
	if got := sessionIDs(t, home); len(got) != 3 {
		t.Fatalf("a declined delete deleted: %v", got)
	}
	if r := hermesTTY(t, "y\n", home, home, "sessions", "delete", ids[0]); r.code != 0 || !strings.Contains(r.stdout, "deleted "+ids[0]) {
		t.Fatalf("answer y: exit %d stdout %q stderr %q", r.code, r.stdout, r.stderr)
	}
	r = hermesTTY(t, "no\n", home, home, "sessions", "prune", "--older-than", "0")
	if r.code != 1 || !contains(r.stderr, ids[1], ids[2], "Delete these 2 session(s)", "[y/N]") {
		t.Fatalf("prune, answer no: exit %d stderr %q", r.code, r.stderr)
	}
	if got := sessionIDs(t, home); len(got) != 2 {
		t.Fatalf("a declined prune deleted: %v", got)
	}
	if r := hermesTTY(t, "yes\n", home, home, "sessions", "prune", "--older-than", "0"); r.code != 0 || !strings.Contains(r.stdout, "deleted 2 session(s)") {
		t.Fatalf("prune, answer yes: exit %d stdout %q stderr %q", r.code, r.stdout, r.stderr)
	}
}
