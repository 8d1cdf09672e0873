//go:build !linux

package sandbox

import (
	"fmt"
	"os"
	"os/exec"
	"runtime"
)

func probe() Status { return Status{OS: runtime.GOOS, Root: os.Geteuid() == 0} }

// wrap is never reached: Enforcement is None off Linux.
func wrap(*exec.Cmd, plan, Status) error { return nil }

func runHelper() {
	fmt.Fprintln(os.Stderr, "hermes sandbox: no sandbox on "+runtime.GOOS)
	os.Exit(126)
}
