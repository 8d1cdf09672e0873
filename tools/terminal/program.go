package terminal

import (
	"context"
	"os"
	"os/exec"
	"strings"
	"syscall"
)

// StartProgram starts cmd the way a foreground command starts: in the
// sandbox through the Terminal's Runner (when there is one), in a process
// group of its own, with the environment of a command (secret variables
// left out, Options.Env added) followed by env. It returns the function
// to wait for cmd with (see sandbox.Runner.Start); cmd.Cancel and
// cmd.WaitDelay are the caller's.
func (t *Terminal) StartProgram(ctx context.Context, session string, cmd *exec.Cmd, env ...string) (wait func() error, err error) {
	cmd.Env = replaceEnv(t.environ(), env)
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setpgid = true
	return t.start(ctx, session, cmd, os.DevNull, true) // nothing the script started outlives it
}

// replaceEnv is base with the variables env names left out, then env,
// so that each name is set once, to env's value, however the starter
// passes the list on.
func replaceEnv(base, env []string) []string {
	names := make(map[string]bool, len(env))
	for _, kv := range env {
		name, _, _ := strings.Cut(kv, "=")
		names[name] = true
	}
	out := make([]string, 0, len(base)+len(env))
	for _, kv := range base {
		if name, _, _ := strings.Cut(kv, "="); !names[name] {
			out = append(out, kv)
		}
	}
	return append(out, env...)
}
