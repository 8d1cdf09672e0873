package terminal

import (
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/hermes-go/hermes/sandbox"
	"golang.org/x/sys/unix"
)

// asTerminal makes hermes' own standard streams a fresh pseudo-terminal
// for the rest of the test, as when it runs in a terminal.
func asTerminal(t *testing.T) {
	t.Helper()
	m, err := os.OpenFile("/dev/ptmx", os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pseudo-terminals here: %v", err)
	}
	t.Cleanup(func() { m.Close() })
	if err := unix.IoctlSetPointerInt(int(m.Fd()), unix.TIOCSPTLCK, 0); err != nil {
		t.Fatal(err)
	}
	n, err := unix.IoctlGetInt(int(m.Fd()), unix.TIOCGPTN)
	if err != nil {
		t.Fatal(err)
	}
	s, err := os.OpenFile("/dev/pts/"+strconv.Itoa(n), os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	in, out, errOut := os.Stdin, os.Stdout, os.Stderr
	os.Stdin, os.Stdout, os.Stderr = s, s, s
	t.Cleanup(func() { os.Stdin, os.Stdout, os.Stderr = in, out, errOut })
}

// A command never gets hermes' terminal as a standard stream: its input
// is empty and its output is captured, sandboxed or not.
func TestACommandsStandardStreamsAreNeverHermesTerminal(t *testing.T) {
	j := newJail(t, sandbox.WorkspaceWrite)
	plain := newTerm(t, Options{Dir: j.ws})
	asTerminal(t)
	script := `for fd in 0 1 2; do [ -t $fd ] && echo "fd $fd is a $(echo term)inal"; done; read -r line; echo "read [$line] $?"`
	for name, term := range map[string]*Terminal{"sandboxed": j.term, "unsandboxed": plain} {
		for _, bg := range []bool{false, true} {
			var out string
			if bg {
				id := startBG(t, term, "t", script)
				run(t, term.ProcessTool(), "t", map[string]any{"action": "wait", "id": id, "timeout": 60})
				out = run(t, term.ProcessTool(), "t", map[string]any{"action": "log", "id": id}).Content
			} else {
				out = run(t, term.TerminalTool(), "t", map[string]any{"command": script}).Content
			}
			if strings.Contains(out, "is a terminal") || !strings.Contains(out, "read [] 1") {
				t.Errorf("%s (background %v): %s", name, bg, out)
			}
		}
	}
}
