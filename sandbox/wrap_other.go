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
func wrap(*exec.Cmd, plan, Status, *os.File) error { return nil }

// startWrapped starts cmd through Wrap: there is no process group to
// put it in off Linux.
func startWrapped(_ context.Context, p Policy, cmd *exec.Cmd, files []string, _ bool) (func() error, error) {
	if err := p.Wrap(cmd, files...); err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	return cmd.Wait, nil
}

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
func (*helper) start(context.Context, *exec.Cmd, Policy, bool) (func() error, error) {
	return nil, errHelperStopped
}

func runHelper() {
	fmt.Fprintln(os.Stderr, "hermes sandbox: no sandbox on "+runtime.GOOS)
	os.Exit(126)
}
