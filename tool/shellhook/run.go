package shellhook

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"
)

// Limits of one run.
const (
	maxOutput = 256 << 10 // bytes kept of stdout and of stderr
	// pipeGrace is how long output pipes may stay open after the shell
	// exits: a helper left in the background must not hold the call.
	pipeGrace = time.Second
	// maxReason caps hook text quoted to the model.
	maxReason = 2000
)

var errTimedOut = errors.New("hook timed out")

// outcome is how one run ended.
type outcome struct {
	exit     int // -1 when the process did not exit normally
	stdout   string
	stderr   string
	timedOut bool
	// cancelled: the turn's context ended (interrupt) before the hook did.
	cancelled bool
	// startErr: the payload could not be built or the shell not started.
	startErr error
	waitErr  error
}

// failure describes a run that neither exited 0 nor 2, or "" when it did.
func (o outcome) failure(timeout time.Duration) string {
	switch {
	case o.startErr != nil:
		return "could not run: " + o.startErr.Error()
	case o.timedOut:
		return fmt.Sprintf("timed out after %s (killed)", timeout)
	case o.cancelled:
		return "interrupted"
	case o.exit == 0 || o.exit == 2:
		return ""
	case o.exit > 0:
		return fmt.Sprintf("exited with status %d", o.exit)
	case o.waitErr != nil:
		return "failed: " + o.waitErr.Error()
	}
	return "failed"
}

// run runs the hook's command with p on stdin, under its timeout, in a
// process group of its own that is killed as a whole when the timeout
// passes or ctx ends.
func (h *hook) run(ctx context.Context, p *payload) outcome {
	in, err := json.Marshal(p)
	if err != nil {
		return outcome{exit: -1, startErr: fmt.Errorf("encode payload: %w", err)}
	}
	runCtx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	stop := h.startTimer(runCtx, func() { cancel(errTimedOut) })
	defer stop()

	cmd := exec.CommandContext(runCtx, h.opts.shell(), "-c", h.Command)
	cmd.Dir = h.opts.Dir
	cmd.Env = append(os.Environ(), h.opts.Env...)
	cmd.Stdin = bytes.NewReader(in)
	stdout, stderr := &capped{max: maxOutput}, &capped{max: maxOutput}
	cmd.Stdout, cmd.Stderr = stdout, stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return killGroup(cmd.Process.Pid) }
	cmd.WaitDelay = pipeGrace
	if err := cmd.Start(); err != nil {
		return outcome{exit: -1, startErr: fmt.Errorf("start %s: %w", h.opts.shell(), err)}
	}
	waitErr := cmd.Wait()
	o := outcome{exit: -1, stdout: stdout.String(), stderr: stderr.String()}
	if runCtx.Err() != nil {
		// Helpers the script left in its group must not outlive a kill.
		_ = killGroup(cmd.Process.Pid)
		o.timedOut = errors.Is(context.Cause(runCtx), errTimedOut)
		o.cancelled = !o.timedOut
		return o
	}
	if cmd.ProcessState != nil {
		o.exit = cmd.ProcessState.ExitCode()
	}
	if waitErr != nil && !errors.Is(waitErr, exec.ErrWaitDelay) {
		var ee *exec.ExitError
		if !errors.As(waitErr, &ee) {
			o.waitErr = waitErr
		}
	}
	return o
}

// startTimer calls fire once the hook's timeout has passed, unless the
// returned stop is called first.
func (h *hook) startTimer(ctx context.Context, fire func()) (stop func()) {
	if h.opts.After == nil {
		t := time.AfterFunc(h.Timeout, fire)
		return func() { t.Stop() }
	}
	ch := h.opts.After(h.Timeout)
	done := make(chan struct{})
	go func() {
		select {
		case <-ch:
			fire()
		case <-ctx.Done():
		case <-done:
		}
	}()
	return func() { close(done) }
}

// killGroup sends SIGKILL to the process group led by pid.
func killGroup(pid int) error {
	err := syscall.Kill(-pid, syscall.SIGKILL)
	if errors.Is(err, syscall.ESRCH) {
		return os.ErrProcessDone
	}
	return err
}

// capped keeps the first max bytes written to it and discards the rest,
// so a chatty hook cannot exhaust memory.
type capped struct {
	buf bytes.Buffer
	max int
}

func (c *capped) Write(p []byte) (int, error) {
	if room := c.max - c.buf.Len(); room > 0 {
		c.buf.Write(p[:min(room, len(p))])
	}
	return len(p), nil
}

func (c *capped) String() string { return c.buf.String() }

// clip shortens hook text quoted in a reason or a warning.
func clip(s string) string {
	s = strings.TrimSpace(s)
	if len(s) <= maxReason {
		return s
	}
	n := maxReason
	for n > 0 && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n] + " …[cut]"
}
