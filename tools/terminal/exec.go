package terminal

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/hermes-go/hermes/redact"
	"github.com/hermes-go/hermes/sandbox"
	"github.com/hermes-go/hermes/tool"
)

// pipeGrace is how long output pipes may stay open after the shell exits:
// a process the command left running in the background keeps them open,
// and the result must not wait for it.
const pipeGrace = 2 * time.Second

// script runs the command through eval so that nothing in it (a stray
// brace, an `exit`) can escape the wrapper, and records the final working
// directory in a side file from an EXIT trap, which runs however the
// command ends. The trap keeps the command's exit status.
const script = `trap 'pwd > "$__HERMES_PWD_FILE" 2>/dev/null' EXIT
__hermes_cmd=$__HERMES_CMD; unset __HERMES_CMD
eval "$__hermes_cmd"`

func (t *Terminal) resolveDir(task, workdir string) (string, error) {
	cur := t.dirs.get(task)
	if workdir == "" {
		return cur, nil
	}
	if !filepath.IsAbs(workdir) {
		workdir = filepath.Join(cur, workdir)
	}
	st, err := os.Stat(workdir)
	if err != nil {
		return "", fmt.Errorf("workdir %s: %w", workdir, err)
	}
	if !st.IsDir() {
		return "", fmt.Errorf("workdir %s is not a directory", workdir)
	}
	return filepath.Clean(workdir), nil
}

// environ is the child environment: ours without the variables that hold
// secrets, by name or by the shape of their value (unless passed
// through), then the configured extras, then settings that keep tools
// from waiting on a pager or a prompt.
func (t *Terminal) environ(extra ...string) []string {
	var env []string
	for _, kv := range os.Environ() {
		name, value, _ := strings.Cut(kv, "=")
		if !redact.SecretVariable(name, value) || t.passedThrough(name) {
			env = append(env, kv)
		}
	}
	env = append(env, t.opts.Env...)
	env = append(env, "PAGER=cat", "GIT_PAGER=cat", "GIT_TERMINAL_PROMPT=0")
	return append(env, extra...)
}

func (t *Terminal) passedThrough(name string) bool {
	for _, p := range t.opts.EnvPassthrough {
		if ok, _ := path.Match(p, name); ok {
			return true
		}
	}
	return false
}

// command builds the child: its own process group, killed as a group when
// ctx ends. pwdFile is where the shell records its final directory.
func (t *Terminal) command(ctx context.Context, command, dir, pwdFile string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, t.opts.Shell, "-c", script)
	cmd.Dir = dir
	cmd.Env = t.environ("__HERMES_CMD="+command, "__HERMES_PWD_FILE="+pwdFile)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return killGroup(cmd.Process.Pid) }
	cmd.WaitDelay = pipeGrace
	return cmd
}

// start starts cmd (made by command, with ctx) under the sandbox when
// there is one, through the Terminal's sandbox Runner, and returns the
// function to wait for it with. The sandbox lets the shell write pwdFile.
// A foreground command's processes end with it: when the wait returns,
// whatever it left running is killed (its sandbox process group where
// the sandbox limits processes, else its process group).
func (t *Terminal) start(ctx context.Context, session string, cmd *exec.Cmd, pwdFile string, foreground bool) (wait func() error, err error) {
	if t.runner == nil {
		if err := cmd.Start(); err != nil {
			return nil, err
		}
		if !foreground {
			return cmd.Wait, nil
		}
		return func() error {
			err := cmd.Wait()
			killGroup(cmd.Process.Pid)
			return err
		}, nil
	}
	o := sandbox.StartOptions{EndWithCommand: foreground}
	if pwdFile != os.DevNull {
		o.Files = []string{pwdFile}
	}
	if t.opts.NetworkAsk != nil {
		o.NetworkAsk = t.opts.NetworkAsk(session)
	}
	return t.runner.Start(ctx, cmd, o)
}

// sandboxNote is, for the first command only, a line saying that the
// sandbox is not enforced or only partly; "" otherwise.
func (t *Terminal) sandboxNote() string {
	var note string
	t.noteOnce.Do(func() {
		if t.opts.Sandbox == nil {
			return
		}
		if e := t.opts.Sandbox.Enforcement(); e.Level == sandbox.Partial || e.Level == sandbox.None {
			note = e.String()
		}
	})
	return note
}

// killGroup sends SIGKILL to the process group led by pid.
func killGroup(pid int) error {
	err := syscall.Kill(-pid, syscall.SIGKILL)
	if errors.Is(err, syscall.ESRCH) {
		return os.ErrProcessDone
	}
	return err
}

// pwdDir is where the working-directory files go: a directory of this
// user's own in the temporary directory (made once, mode 0700), so that
// commands do not change the temporary directory itself, whose listing
// every new workspace's sandbox would then read again; the temporary
// directory itself when that directory cannot be had or is not
// trustworthy (another owner, a link, open to others).
func pwdDir() string {
	tmp := os.TempDir()
	dir := filepath.Join(tmp, fmt.Sprintf("hermes-%d", os.Getuid()))
	os.Mkdir(dir, 0o700)
	st, err := os.Lstat(dir)
	if err != nil || !st.IsDir() || st.Mode().Perm() != 0o700 {
		return tmp
	}
	if sys, ok := st.Sys().(*syscall.Stat_t); !ok || int(sys.Uid) != os.Getuid() {
		return tmp
	}
	return dir
}

func (t *Terminal) runForeground(ctx context.Context, session, task, command, dir string, timeout time.Duration) tool.Result {
	pwdFile, err := os.CreateTemp(pwdDir(), "hermes-pwd-*")
	if err != nil {
		return tool.Error("terminal: create working-directory file: " + err.Error())
	}
	pwdPath := pwdFile.Name()
	pwdFile.Close()
	defer os.Remove(pwdPath)

	runCtx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := t.command(runCtx, command, dir, pwdPath)
	stdout, stderr := newHeadTail(t.opts.MaxOutput), newHeadTail(t.opts.MaxOutput)
	cmd.Stdout, cmd.Stderr = stdout, stderr
	wait, err := t.start(runCtx, session, cmd, pwdPath, true)
	if err != nil {
		return tool.Error(fmt.Sprintf("terminal: start %s: %v", t.opts.Shell, err))
	}
	// The wait kills what the command left running (`cmd &`): a
	// foreground command's processes do not outlive its result.
	waitErr := wait()

	var note string
	exitCode := -1
	var ee *exec.ExitError
	switch {
	case ctx.Err() != nil:
		note = "cancelled: the command and its child processes were killed"
	case runCtx.Err() != nil:
		note = fmt.Sprintf("timed out after %s: the command and its child processes were killed; pass a larger timeout or use background: true", timeout)
	case waitErr == nil, errors.Is(waitErr, exec.ErrWaitDelay):
		exitCode = cmd.ProcessState.ExitCode()
		if waitErr != nil {
			note = "the command left a background process holding its output; later output is not shown (use background: true for long-running processes)"
		}
	case errors.As(waitErr, &ee):
		exitCode = ee.ExitCode()
		if exitCode == -1 {
			note = "killed by signal: " + ee.String()
		}
	default:
		note = "wait: " + waitErr.Error()
	}
	if exitCode == -1 && cmd.ProcessState != nil && cmd.ProcessState.ExitCode() >= 0 {
		exitCode = cmd.ProcessState.ExitCode()
	}

	if b, err := os.ReadFile(pwdPath); err == nil {
		if final := strings.TrimSpace(string(b)); final != "" && final != dir {
			t.dirs.set(task, final)
		}
	}

	var b strings.Builder
	fmt.Fprintf(&b, "exit code: %d\n", exitCode)
	if note != "" {
		fmt.Fprintf(&b, "note: %s\n", note)
	}
	if sn := t.sandboxNote(); sn != "" {
		fmt.Fprintf(&b, "note: %s\n", sn)
	}
	fmt.Fprintf(&b, "cwd: %s\n", t.dirs.get(task))
	writeStream(&b, "stdout", stdout)
	writeStream(&b, "stderr", stderr)
	res := tool.Result{Content: t.opts.Redact(b.String())}
	// A command that ran and exited non-zero is an answer, not a tool
	// failure; a command that could not finish is.
	res.IsError = runCtx.Err() != nil
	return res
}

func writeStream(b *strings.Builder, name string, h *headTail) {
	if h.total == 0 {
		fmt.Fprintf(b, "%s: (empty)\n", name)
		return
	}
	s := h.String()
	fmt.Fprintf(b, "--- %s ---\n%s", name, s)
	if !strings.HasSuffix(s, "\n") {
		b.WriteByte('\n')
	}
}

// sandboxHint tells the model, in the tool's description, what the
// sandbox lets a command do, so that a refused write reads as the rule it
// is; "" when commands are not sandboxed.
func (t *Terminal) sandboxHint() string {
	p := t.opts.Sandbox
	if p == nil || p.Mode == sandbox.FullAccess {
		return ""
	}
	e := p.Enforcement()
	if e.Level != sandbox.Full && e.Level != sandbox.Partial {
		return ""
	}
	var b strings.Builder
	if p.Mode == sandbox.ReadOnly {
		b.WriteString(" Sandbox: read-only, nothing can be created, changed or deleted.")
	} else {
		fmt.Fprintf(&b, " Sandbox: writes only under %s (.git/hooks, .git/config, .hermes read-only).", strings.Join(p.WritableRoots, ", "))
	}
	if e.Status.MountNamespace {
		b.WriteString(" Credentials (HERMES_HOME, ~/.ssh) are unreadable.")
	}
	switch e.Network {
	case sandbox.NetworkOff:
		b.WriteString(" The network is off.")
	case sandbox.NetworkAllowlist:
		b.WriteString(" The network reaches only allowed hosts (registries, forges, sandbox.network.allow) via HTTP_PROXY; others get 403.")
	}
	b.WriteString(" When refused, tell the user what is needed; do not work around it. Signals reach only processes a command started.")
	return b.String()
}
