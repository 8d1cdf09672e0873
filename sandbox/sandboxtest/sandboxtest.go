// Package sandboxtest has what tests of the sandbox's users share: which
// mount namespace a process, or the commands of a Runner, run in.
package sandboxtest

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/hermes-go/hermes/sandbox"
)

// MountNamespace is the mount namespace of process pid
// ("mnt:[4026531841]").
func MountNamespace(t testing.TB, pid string) string {
	t.Helper()
	ns, err := os.Readlink("/proc/" + strings.TrimSpace(pid) + "/ns/mnt")
	if err != nil {
		t.Fatal(err)
	}
	return ns
}

// RunnerNamespace is the mount namespace of the commands r starts,
// checked to be the same for two of them: that of the helper lane that
// forks them.
func RunnerNamespace(t testing.TB, r *sandbox.Runner) string {
	t.Helper()
	var seen []string
	for range 2 {
		cmd := exec.Command("readlink", "/proc/self/ns/mnt")
		var out bytes.Buffer
		cmd.Stdout = &out
		wait, err := r.Start(context.Background(), cmd, sandbox.StartOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if err := wait(); err != nil {
			t.Fatal(err)
		}
		seen = append(seen, strings.TrimSpace(out.String()))
	}
	if seen[0] != seen[1] || seen[0] == "" {
		t.Fatalf("the runner has no helper: its commands ran in %q", seen)
	}
	return seen[0]
}
