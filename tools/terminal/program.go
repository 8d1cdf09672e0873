package terminal

import (
	"context"
	"os"
	"os/exec"
	"syscall"
)

// StartProgram starts cmd the way a foreground command starts: in the
// sandbox through the Terminal's Runner (when there is one), in a process
// group of its own, with the environment of a command (secret variables
// left out, Options.Env added) followed by env. It returns the function
// to wait for cmd with (see sandbox.Runner.Start); cmd.Cancel and
// cmd.WaitDelay are the caller's.
func (t *Terminal) StartProgram(ctx context.Context, session string, cmd *exec.Cmd, env ...string) (wait func() error, err error) {
	cmd.Env = t.environ(env...)
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setpgid = true
	return t.start(ctx, session, cmd, os.DevNull)
}
