//go:build !linux

package sandbox

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
)

func probe() Status { return Status{OS: runtime.GOOS, Root: os.Geteuid() == 0} }

// wrap is never reached: Enforcement is None off Linux.
func wrap(*exec.Cmd, plan, Status) error { return nil }

// startHelper is never reached: Enforcement is None off Linux.
func startHelper(Policy, Status) (*helper, error) {
	return nil, errors.New("no sandbox on " + runtime.GOOS)
}

// helper is a Runner's helper; there is none off Linux.
type helper struct{}

var (
	errHelperStopped = errors.New("the sandbox helper stopped")
	errTooLarge      = errors.New("request too large for the sandbox helper")
)

func (*helper) exited() bool { return true }
func (*helper) close()       {}
func (*helper) kill()        {}
func (*helper) start(context.Context, *exec.Cmd, Policy) (func() error, error) {
	return nil, errHelperStopped
}

func runHelper() {
	fmt.Fprintln(os.Stderr, "hermes sandbox: no sandbox on "+runtime.GOOS)
	os.Exit(126)
}
