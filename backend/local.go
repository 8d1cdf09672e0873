package backend

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/hermes-go/hermes/redact"
	"github.com/hermes-go/hermes/sandbox"
	"github.com/hermes-go/hermes/tool/approval"
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

// LocalOptions configure the backend of this machine.
type LocalOptions struct {
	// Dir is the workspace; empty means the process's directory.
	Dir string
	// Shell is the shell binary; empty means bash, or sh when bash is
	// not installed.
	Shell string
	// Env is added to every command's environment ("KEY=value").
	Env []string
	// EnvPassthrough names the inherited variables a command keeps
	// although their names or values mark them as secrets
	// (redact.SecretVariable); path.Match patterns ("AWS_*") work too.
	EnvPassthrough []string
	// Sandbox confines every command to the policy and guards the file
	// tools with it; nil runs commands unsandboxed and lets the file
	// tools read and write anything.
	Sandbox *sandbox.Policy
	// Runner, when set, starts the sandboxed commands: a Runner of
	// Sandbox's policy shared with others, which its owner closes. Nil:
	// the backend starts one of its own and closes it.
	Runner *sandbox.Runner
	// NetworkAsk gives the person to ask about a domain outside the
	// sandbox's network allowlist for a command of a session; nil for
	// nobody.
	NetworkAsk func(sessionID string) func(ctx context.Context, host string) (approval.Choice, error)
}

// Local runs commands as child processes of hermes, under the sandbox
// when there is one, and uses this machine's file system.
type Local struct {
	opts      LocalOptions
	runner    *sandbox.Runner // nil without a sandbox
	ownRunner bool

	mu    sync.Mutex
	procs map[*localProcess]struct{} // background processes running
}

// NewLocal returns the backend of this machine. The sandbox's helper
// starts in the background now, so that the first command finds it
// ready.
func NewLocal(o LocalOptions) *Local {
	if o.Shell == "" {
		o.Shell = findShell()
	}
	if o.Dir == "" {
		if wd, err := os.Getwd(); err == nil {
			o.Dir = wd
		} else {
			o.Dir = "/"
		}
	}
	l := &Local{opts: o, procs: map[*localProcess]struct{}{}}
	if p := o.Sandbox; p != nil && p.Mode != sandbox.FullAccess {
		l.runner = o.Runner
		if l.runner == nil {
			l.runner, l.ownRunner = p.NewRunner(), true
		}
	}
	return l
}

func findShell() string {
	for _, s := range []string{"bash", "sh"} {
		if p, err := exec.LookPath(s); err == nil {
			return p
		}
	}
	return "/bin/sh"
}

func (l *Local) Name() string { return "local" }
func (l *Local) Dir() string  { return l.opts.Dir }
func (l *Local) FS() FS       { return OSFS{} }

// Describe is the sandbox's enforcement line, or that there is none.
func (l *Local) Describe() string {
	if l.opts.Sandbox == nil {
		return "local: commands run on this machine, unsandboxed"
	}
	return "local: " + l.opts.Sandbox.Enforcement().String()
}

func (l *Local) CheckRead(p string) error {
	if l.opts.Sandbox == nil {
		return nil
	}
	return l.opts.Sandbox.CheckRead(p)
}

func (l *Local) CheckWrite(p string) error {
	if l.opts.Sandbox == nil {
		return nil
	}
	return l.opts.Sandbox.CheckWrite(p)
}

// Close kills every background process still running and stops the
// sandbox's helper, unless LocalOptions.Runner is someone else's.
func (l *Local) Close() error {
	l.mu.Lock()
	procs := make([]*localProcess, 0, len(l.procs))
	for p := range l.procs {
		procs = append(procs, p)
	}
	l.mu.Unlock()
	for _, p := range procs {
		p.Kill()
	}
	for _, p := range procs {
		<-p.done
	}
	if l.ownRunner {
		l.runner.Close()
	}
	return nil
}

// environ is the child environment: ours without the variables that hold
// secrets, by name or by the shape of their value (unless passed
// through), then the configured extras, then settings that keep tools
// from waiting on a pager or a prompt.
func (l *Local) environ(extra ...string) []string {
	var env []string
	for _, kv := range os.Environ() {
		name, value, _ := strings.Cut(kv, "=")
		if !redact.SecretVariable(name, value) || l.passedThrough(name) {
			env = append(env, kv)
		}
	}
	env = append(env, l.opts.Env...)
	env = append(env, "PAGER=cat", "GIT_PAGER=cat", "GIT_TERMINAL_PROMPT=0")
	return append(env, extra...)
}

func (l *Local) passedThrough(name string) bool {
	for _, p := range l.opts.EnvPassthrough {
		if ok, _ := path.Match(p, name); ok {
			return true
		}
	}
	return false
}

// command builds the child: its own process group, killed as a group when
// ctx ends. pwdFile is where the shell records its final directory.
func (l *Local) command(ctx context.Context, c Command, pwdFile string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, l.opts.Shell, "-c", script)
	cmd.Dir = c.Dir
	cmd.Env = l.environ(append(c.Env, "__HERMES_CMD="+c.Line, "__HERMES_PWD_FILE="+pwdFile)...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return killGroup(cmd.Process.Pid) }
	cmd.WaitDelay = pipeGrace
	cmd.Stdout, cmd.Stderr = c.Stdout, c.Stderr
	return cmd
}

// start starts cmd (made by command, with ctx) under the sandbox when
// there is one, through the backend's sandbox Runner, and returns the
// function to wait for it with. The sandbox lets the shell write pwdFile.
// A foreground command's processes end with it: when the wait returns,
// whatever it left running is killed (its sandbox process group where
// the sandbox limits processes, else its process group).
func (l *Local) start(ctx context.Context, session string, cmd *exec.Cmd, pwdFile string, foreground bool) (wait func() error, err error) {
	if l.runner == nil {
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
	if l.opts.NetworkAsk != nil {
		o.NetworkAsk = l.opts.NetworkAsk(session)
	}
	return l.runner.Start(ctx, cmd, o)
}

// Run runs c under the shell in its own process group; see Backend.Run.
func (l *Local) Run(ctx context.Context, c Command) (Exit, error) {
	pwdFile, err := os.CreateTemp(pwdDir(), "hermes-pwd-*")
	if err != nil {
		return Exit{}, fmt.Errorf("create working-directory file: %w", err)
	}
	pwdPath := pwdFile.Name()
	pwdFile.Close()
	defer os.Remove(pwdPath)

	cmd := l.command(ctx, c, pwdPath)
	wait, err := l.start(ctx, c.Session, cmd, pwdPath, true)
	if err != nil {
		return Exit{}, fmt.Errorf("start %s: %w", l.opts.Shell, err)
	}
	// The wait kills what the command left running (`cmd &`): a
	// foreground command's processes do not outlive its result.
	waitErr := wait()

	e := Exit{Code: -1}
	var ee *exec.ExitError
	switch {
	case ctx.Err() != nil:
	case waitErr == nil, errors.Is(waitErr, exec.ErrWaitDelay):
		e.Code = cmd.ProcessState.ExitCode()
		if waitErr != nil {
			e.Note = "the command left a background process holding its output; later output is not shown (use background: true for long-running processes)"
		}
	case errors.As(waitErr, &ee):
		e.Code = ee.ExitCode()
		if e.Code == -1 {
			e.Note = "killed by signal: " + ee.String()
		}
	default:
		e.Note = "wait: " + waitErr.Error()
	}
	if e.Code == -1 && cmd.ProcessState != nil && cmd.ProcessState.ExitCode() >= 0 {
		e.Code = cmd.ProcessState.ExitCode()
	}
	if b, err := os.ReadFile(pwdPath); err == nil {
		e.Dir = strings.TrimSpace(string(b))
	}
	return e, nil
}

// localProcess is a background command of Local.
type localProcess struct {
	l    *Local
	cmd  *exec.Cmd
	done chan struct{}
	exit Exit
}

func (p *localProcess) Pid() int              { return p.cmd.Process.Pid }
func (p *localProcess) Done() <-chan struct{} { return p.done }
func (p *localProcess) Exit() Exit            { <-p.done; return p.exit }
func (p *localProcess) Kill() error           { return killGroup(p.cmd.Process.Pid) }

// Start starts c in its own process group, detached from any call's
// context.
func (l *Local) Start(c Command) (Process, error) {
	// The pwd side file is not needed: a background process never moves
	// the task's directory.
	cmd := l.command(context.Background(), c, os.DevNull)
	wait, err := l.start(context.Background(), c.Session, cmd, os.DevNull, false)
	if err != nil {
		return nil, err
	}
	p := &localProcess{l: l, cmd: cmd, done: make(chan struct{})}
	l.mu.Lock()
	l.procs[p] = struct{}{}
	l.mu.Unlock()
	go func() {
		err := wait()
		p.exit.Code = cmd.ProcessState.ExitCode()
		if err != nil && p.exit.Code == -1 {
			p.exit.Note = err.Error()
		}
		l.mu.Lock()
		delete(l.procs, p)
		l.mu.Unlock()
		close(p.done)
	}()
	return p, nil
}

// StartProgram starts cmd the way a foreground command starts: in the
// sandbox through the backend's Runner (when there is one), in a process
// group of its own, with the environment of a command (secret variables
// left out, LocalOptions.Env added) followed by env. It returns the
// function to wait for cmd with (see sandbox.Runner.Start); cmd.Cancel
// and cmd.WaitDelay are the caller's.
func (l *Local) StartProgram(ctx context.Context, session string, cmd *exec.Cmd, env ...string) (wait func() error, err error) {
	cmd.Env = replaceEnv(l.environ(), env)
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setpgid = true
	return l.start(ctx, session, cmd, os.DevNull, true) // nothing the script started outlives it
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

// Notice is, when the sandbox is not enforced or only partly, the line
// that says so.
func (l *Local) Notice() string {
	if l.opts.Sandbox == nil {
		return ""
	}
	if e := l.opts.Sandbox.Enforcement(); e.Level == sandbox.Partial || e.Level == sandbox.None {
		return e.String()
	}
	return ""
}

// Hint tells the model what the sandbox lets a command do, so that a
// refused write reads as the rule it is; "" when commands are not
// sandboxed.
func (l *Local) Hint() string {
	p := l.opts.Sandbox
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
