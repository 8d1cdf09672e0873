package docker

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os/exec"
	"path"
	"strings"
	"syscall"
	"time"

	"github.com/hermes-go/hermes/backend"
)

// pipeGrace is how long the CLI's output may stay open after it exits.
const pipeGrace = 2 * time.Second

// killTimeout bounds the exec that kills a command in the container.
const killTimeout = 30 * time.Second

// Run implements backend.Backend: c runs in its conversation's container
// through docker exec. When ctx ends, the command and every process it
// started are killed inside the container, not only the CLI client.
func (b *Backend) Run(ctx context.Context, c backend.Command) (backend.Exit, error) {
	for attempt := 0; ; attempt++ {
		ct, err := b.container(ctx, c.Session)
		if err != nil {
			return backend.Exit{Code: -1}, err
		}
		ex, gone, err := b.runIn(ctx, ct, c)
		if gone && attempt == 0 && ctx.Err() == nil {
			// Removed behind our back (docker rm, the reaper of another
			// process): start a new one and say so.
			b.forget(c.Session, ct)
			b.opts.Warn(fmt.Sprintf("docker backend: container %.12s is gone; starting a new one (what was outside the workspace is lost)", ct.id))
			continue
		}
		return ex, err
	}
}

// runIn runs c in ct; gone reports that the engine no longer has ct (the
// command did not run).
func (b *Backend) runIn(ctx context.Context, ct *container, c backend.Command) (ex backend.Exit, gone bool, err error) {
	id := newCommandID()
	cmd := b.execCommand(context.WithoutCancel(ctx), ct, c, id, true)
	errw := newCwdWriter(c.Stderr, id)
	cmd.Stdout, cmd.Stderr = c.Stdout, errw
	if cmd.Stdout == nil {
		cmd.Stdout = discard{}
	}
	if err := cmd.Start(); err != nil {
		return backend.Exit{Code: -1}, false, b.cli.classify([]string{"exec"}, err, "")
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var waitErr error
	select {
	case waitErr = <-done:
	case <-ctx.Done():
		b.killIn(ct, id)
		killGroup(cmd)
		<-done
		errw.Finish()
		return backend.Exit{Code: -1}, false, nil
	}
	dir, found := errw.Finish()
	code := cmd.ProcessState.ExitCode()
	if !found {
		// No marker: the CLI or the engine failed before the wrapper
		// ran, or the command was killed before its trap could run.
		msg := errw.head()
		if cliFailed(msg) && goneMessage(msg) {
			return backend.Exit{Code: -1}, true, nil // not run: safe to run again
		}
		if cliFailed(msg) || code == -1 {
			return backend.Exit{Code: -1}, false, fmt.Errorf("docker backend: exec in container %.12s: %w", ct.id,
				b.cli.classify([]string{"exec"}, errOr(waitErr), msg))
		}
		b.killIn(ct, id) // what the killed command left running
	}
	ex = backend.Exit{Code: code, Dir: dir}
	if errors.Is(waitErr, exec.ErrWaitDelay) {
		ex.Note = "the command left a background process holding its output; later output is not shown (use background: true for long-running processes)"
	}
	if code > 128 && code < 128+65 {
		ex.Note = "killed by signal " + strings.TrimSpace(syscall.Signal(code-128).String())
	}
	return ex, false, nil
}

// execCommand is the docker exec of c in ct under command id id: in the
// workspace (the wrapper moves to c.Dir), with the command environment
// (see environment) and HERMES_CMD_ID, which marks its processes.
func (b *Backend) execCommand(ctx context.Context, ct *container, c backend.Command, id string, wantDir bool) *exec.Cmd {
	args := []string{"exec", "-w", b.opts.Policy.Workspace}
	if b.opts.User != "" {
		args = append(args, "--user", b.opts.User)
	}
	env, clientEnv := b.environment(c.Env)
	for _, e := range env {
		args = append(args, "-e", e)
	}
	args = append(args, "-e", "HERMES_CMD_ID="+id)
	dir := c.Dir
	if dir == "" {
		dir = b.opts.Dir
	}
	cwd := ""
	if wantDir {
		cwd = "cwd"
	}
	args = append(args, ct.id, ct.shell, "-c", script, "hermes", c.Line, path.Clean(dir), id, cwd)
	cmd := b.cli.command(ctx, args...)
	cmd.Env = clientEnv
	cmd.WaitDelay = pipeGrace
	cmd.Cancel = func() error { return killGroup(cmd) }
	return cmd
}

// environment is what a command sees besides the image's own
// environment: settings that keep tools from waiting on a pager or a
// prompt, Options.Env, the command's Env ("K=V" each), and the variables
// forward_env names, passed by name only ("-e NAME") so that their values
// travel in the CLI's environment (clientEnv), never on a command line.
// Nothing else of hermes' environment enters the container.
func (b *Backend) environment(extra []string) (args, clientEnv []string) {
	args = []string{"PAGER=cat", "GIT_PAGER=cat", "GIT_TERMINAL_PROMPT=0"}
	args = append(append(args, b.opts.Env...), extra...)
	clientEnv = b.opts.Environ()
	for _, kv := range clientEnv {
		name, _, _ := strings.Cut(kv, "=")
		if b.forwarded(name) {
			args = append(args, name)
		}
	}
	return args, clientEnv
}

func (b *Backend) forwarded(name string) bool {
	for _, p := range b.opts.ForwardEnv {
		if ok, _ := path.Match(p, name); ok {
			return true
		}
	}
	return false
}

// killIn kills command id's processes in ct, whatever the caller's
// context has become.
func (b *Backend) killIn(ct *container, id string) {
	ctx, cancel := context.WithTimeout(context.Background(), killTimeout)
	defer cancel()
	args := []string{"exec"}
	if b.opts.User != "" {
		args = append(args, "--user", b.opts.User)
	}
	if _, err := b.cli.run(ctx, nil, append(args, ct.id, "sh", "-c", killScript, "hermes", id)...); err != nil {
		b.opts.Warn(fmt.Sprintf("docker backend: kill command in container %.12s: %v", ct.id, err))
	}
}

// killGroup kills the CLI client (and its process group).
func killGroup(cmd *exec.Cmd) error {
	if cmd.Process == nil {
		return nil
	}
	if err := syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL); err != nil && !errors.Is(err, syscall.ESRCH) {
		return err
	}
	return nil
}

// cliFailed recognises the CLI's or the engine's own failure to exec (as
// against a command killed before its trap ran).
func cliFailed(msg string) bool {
	return daemonDown(msg) || strings.Contains(msg, "Error response from daemon") || strings.Contains(msg, "OCI runtime") ||
		strings.HasPrefix(msg, "Error: ") || strings.Contains(msg, "executable file not found")
}

// goneMessage recognises the engine saying the container no longer is.
func goneMessage(msg string) bool {
	return strings.Contains(msg, "No such container") || strings.Contains(msg, "is not running") ||
		strings.Contains(msg, "no such container") || strings.Contains(msg, "container state improper")
}

func newCommandID() string {
	var r [8]byte
	rand.Read(r[:])
	return hex.EncodeToString(r[:])
}

func errOr(err error) error {
	if err == nil {
		return errors.New("failed")
	}
	return err
}

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }
