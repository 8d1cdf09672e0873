package docker

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// The wrapper is POSIX sh: images without bash (alpine, busybox) run it
// under their sh. Here under dash, the strictest sh at hand.
func TestTheWrapperRunsUnderAPOSIXShell(t *testing.T) {
	dash, err := exec.LookPath("dash")
	if err != nil {
		t.Skip("no dash")
	}
	dir := t.TempDir()
	var stderr bytes.Buffer
	w := newCwdWriter(&stderr, "0123456789abcdef")
	cmd := exec.Command(dash, "-c", script, "hermes", "cd / && echo out; echo err >&2; sleep 60 & echo $! > "+dir+"/pid; exit 5", dir, "0123456789abcdef", "cwd")
	cmd.Env = []string{"PATH=/usr/bin:/bin", "HERMES_CMD_ID=0123456789abcdef"}
	var stdout bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, w
	cmd.WaitDelay = time.Second // a surviving sleep must not hold the test
	err = cmd.Run()
	final, found := w.Finish()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 5 {
		t.Errorf("exit %v, want 5", err)
	}
	if !found || final != "/" {
		t.Errorf("final dir %q (found %v), want /", final, found)
	}
	if stdout.String() != "out\n" || stderr.String() != "err\n" {
		t.Errorf("stdout %q stderr %q", stdout.String(), stderr.String())
	}
	// The trap killed what the command left running.
	pid, _ := os.ReadFile(filepath.Join(dir, "pid"))
	if len(pid) == 0 || !gone(t, string(pid)) {
		t.Errorf("the background sleep %q outlived the command", pid)
	}
}
