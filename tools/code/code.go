package code

import (
	"context"
	"crypto/rand"
	_ "embed"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/hermes-go/hermes/tool"
)

//go:embed description.md
var description string

// Defaults used when an Options field is zero.
const (
	DefaultTimeout      = 300 * time.Second
	DefaultMaxToolCalls = 50
	DefaultMaxStdout    = 50_000
	DefaultMaxStderr    = 10_000
	// DefaultMaxSaved bounds the file that keeps the whole stdout.
	DefaultMaxSaved = 64 << 20
	// killGrace is how long a script has between SIGTERM and SIGKILL.
	killGrace = 5 * time.Second
	// pipeGrace is how long output may still arrive once the script's
	// process group was killed (a process that left it holds the pipe).
	pipeGrace = time.Second
)

// Never are the tools a script never gets: those that talk to the user,
// start agents or runs of their own, nest scripts, or keep the
// conversation's own state (memory, task list, skills, background
// processes), which the model changes itself, where it sees the change.
var Never = []string{"execute_code", "delegate_task", "clarify", "cronjob", "memory", "todo", "skill_manage", "process"}

// Starter starts cmd as a terminal command of session starts (in the
// sandbox, in a process group of its own, with the environment of a
// command followed by env) and returns the function to wait for it with.
// terminal.Terminal.StartProgram is one.
type Starter func(ctx context.Context, session string, cmd *exec.Cmd, env ...string) (wait func() error, err error)

// Options configure the execute_code tool.
type Options struct {
	// Python is the interpreter; empty means python3 on PATH.
	Python string
	// Timeout is a script's time limit, and the largest a call may ask.
	Timeout time.Duration
	// MaxToolCalls bounds the tool calls of one script.
	MaxToolCalls int
	// MaxStdout and MaxStderr bound what the result shows of each stream,
	// in bytes.
	MaxStdout, MaxStderr int
	// Tools lists the tools offered to the model; the script gets them
	// all but Never. It may list the execute_code tool itself.
	Tools func() []tool.Tool
	// Start starts the script. Required.
	Start Starter
	// Unavailable, when set, is why scripts cannot run here (commands
	// run on a remote host, and a script is a program of this machine):
	// the tool is not offered, and a call is refused with it.
	Unavailable error
	// Workdir is the task's working directory (where a terminal command
	// of the task would start).
	Workdir func(taskID string) string
	// Dir holds each run's private directory; empty means a directory of
	// this user's own in the temporary directory. The sandbox must let a
	// command read it and connect to sockets in it.
	Dir string
	// SpillDir receives the whole stdout of a script that printed more
	// than MaxStdout; empty means os.TempDir()/hermes-tool-output.
	SpillDir string
}

// Tool is the execute_code tool.
type Tool struct {
	opts   Options
	grace  time.Duration // between SIGTERM and SIGKILL
	saved  int64         // the most of stdout saved to a file
	once   sync.Once
	python string
	// sitePath are the interpreter's package directories.
	sitePath []string
	err      error
}

// New returns the execute_code tool.
func New(o Options) *Tool {
	if o.Timeout <= 0 {
		o.Timeout = DefaultTimeout
	}
	if o.MaxToolCalls <= 0 {
		o.MaxToolCalls = DefaultMaxToolCalls
	}
	if o.MaxStdout <= 0 {
		o.MaxStdout = DefaultMaxStdout
	}
	if o.MaxStderr <= 0 {
		o.MaxStderr = DefaultMaxStderr
	}
	if o.Python == "" {
		o.Python = "python3"
	}
	if o.Tools == nil {
		o.Tools = func() []tool.Tool { return nil }
	}
	return &Tool{opts: o, grace: killGrace, saved: DefaultMaxSaved}
}

// check finds the interpreter, once: the tool is offered where it is.
func (t *Tool) check() error {
	if t.opts.Unavailable != nil {
		return t.opts.Unavailable
	}
	t.once.Do(func() {
		in := findInterpreter(t.opts.Python)
		t.python, t.sitePath, t.err = in.python, in.sitePath, in.err
	})
	return t.err
}

// interpreter is what findInterpreter learnt of a configured python.
type interpreter struct {
	python   string
	sitePath []string
	err      error
}

// interpreters caches findInterpreter per configured name for the
// process: every conversation makes its own tool, and asking python
// costs a start of it.
var interpreters sync.Map // name -> interpreter

// findInterpreter looks name up on PATH. A version manager's shim
// (pyenv) is a shell script that starts the interpreter: it is asked,
// once, for the interpreter itself, which starts in a fraction of the
// time. Scripts start without the site module (-S), whose .pth files cost
// tens of milliseconds a start; its package directories are found here
// and put on their path instead.
func findInterpreter(name string) interpreter {
	if v, ok := interpreters.Load(name); ok {
		return v.(interpreter)
	}
	var in interpreter
	in.python, in.err = exec.LookPath(name)
	if in.err != nil {
		in.err = fmt.Errorf("execute_code: %w", in.err)
	} else {
		out, err := exec.Command(in.python, "-S", "-c", "import sys, site; print(sys.executable); print('\\n'.join(site.getsitepackages()))").Output()
		lines := strings.Split(strings.TrimSpace(string(out)), "\n")
		if err == nil && filepath.IsAbs(lines[0]) {
			in.python, in.sitePath = lines[0], lines[1:]
		}
	}
	v, _ := interpreters.LoadOrStore(name, in)
	return v.(interpreter)
}

const parameters = `{"type":"object","properties":{` +
	`"code":{"type":"string","description":"Python 3 source of the script. Import your tools with: from hermes_tools import ..."},` +
	`"timeout":{"type":"number","description":"Time limit in seconds (default and most: %d)."}},` +
	`"required":["code"],"additionalProperties":false}`

// Spec describes the tool, with the signatures of the functions a script
// gets, generated from the offered tools' schemas.
func (t *Tool) Spec() tool.Spec {
	var b strings.Builder
	b.WriteString(strings.TrimSpace(description))
	fmt.Fprintf(&b, "\n\nLimits: %d s, %d tool calls, %d bytes of stdout shown (the rest saved to a file). Functions in hermes_tools:",
		int(t.opts.Timeout.Seconds()), t.opts.MaxToolCalls, t.opts.MaxStdout)
	for _, f := range t.functions() {
		b.WriteString("\n" + f.signature())
	}
	return tool.Spec{
		Name:        "execute_code",
		Description: b.String(),
		Parameters:  json.RawMessage(fmt.Sprintf(parameters, int(t.opts.Timeout.Seconds()))),
		Toolset:     "code",
		Class:       tool.Sequential,
		// The tool enforces the script's limit; this is a backstop.
		Timeout: t.opts.Timeout + killGrace + 30*time.Second,
		Check:   t.check,
	}
}

// functions are the offered tools a script gets, sorted by name.
func (t *Tool) functions() []function {
	var out []function
	for _, tt := range t.opts.Tools() {
		if _, self := tt.(*Tool); self {
			continue // its Spec would ask for these functions again
		}
		s := tt.Spec()
		if slices.Contains(Never, s.Name) || s.Check != nil && s.Check() != nil {
			continue
		}
		out = append(out, functionOf(s))
	}
	slices.SortFunc(out, func(a, b function) int { return strings.Compare(a.name, b.name) })
	return slices.CompactFunc(out, func(a, b function) bool { return a.name == b.name })
}

type args struct {
	Code    string   `json:"code"`
	Timeout *float64 `json:"timeout,omitempty"`
}

// Result is what a run returns to the model, as JSON.
type Result struct {
	ExitCode   int          `json:"exit_code"`
	Stdout     string       `json:"stdout"`
	Stderr     string       `json:"stderr"`
	ToolCalls  []CallRecord `json:"tool_calls"`
	ElapsedMS  int64        `json:"elapsed_ms"`
	Note       string       `json:"note,omitempty"`
	StdoutFile string       `json:"stdout_file,omitempty"`
}

// Run runs one script.
func (t *Tool) Run(ctx context.Context, call tool.Call) (tool.Result, error) {
	var a args
	if err := json.Unmarshal(call.Args, &a); err != nil {
		return tool.Error("execute_code: " + err.Error()), nil
	}
	if strings.TrimSpace(a.Code) == "" {
		return tool.Error("execute_code: code is empty"), nil
	}
	timeout := t.opts.Timeout
	if a.Timeout != nil {
		if *a.Timeout <= 0 {
			return tool.Error("execute_code: timeout must be a positive number of seconds"), nil
		}
		timeout = min(timeout, time.Duration(*a.Timeout*float64(time.Second)))
	}
	if err := t.check(); err != nil {
		return tool.Error(err.Error()), nil
	}
	exe := tool.ExecutorFrom(ctx)
	if exe == nil {
		return tool.Error("execute_code: not run by an executor, so its scripts cannot call tools"), nil
	}
	res, err := t.run(ctx, exe, call, a.Code, timeout)
	if err != nil {
		return tool.Error("execute_code: " + err.Error()), nil
	}
	b, _ := json.MarshalIndent(res, "", " ")
	return tool.Result{Content: string(b), IsError: res.ExitCode != 0}, nil
}

// run makes the run's private directory, module and socket, runs the
// script under the limits and gathers the result.
func (t *Tool) run(ctx context.Context, exe *tool.Executor, call tool.Call, code string, timeout time.Duration) (*Result, error) {
	start := time.Now()
	dir, err := t.runDir()
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	fns := t.functions()
	allowed := map[string]bool{}
	for _, f := range fns {
		allowed[f.tool] = true
	}
	script := filepath.Join(dir, "script.py")
	if err := os.WriteFile(filepath.Join(dir, "hermes_tools.py"), []byte(moduleSource(fns)), 0o600); err != nil {
		return nil, fmt.Errorf("write hermes_tools: %w", err)
	}
	if err := os.WriteFile(script, []byte(code), 0o600); err != nil {
		return nil, fmt.Errorf("write the script: %w", err)
	}
	sock := filepath.Join(dir, "t.sock")
	if len(sock) >= 108 { // sun_path
		return nil, fmt.Errorf("the socket path %s is too long for a Unix socket; set a shorter TMPDIR", sock)
	}
	ln, err := net.Listen("unix", sock)
	if err != nil {
		return nil, fmt.Errorf("listen for tool calls: %w", err)
	}
	token := make([]byte, 32)
	rand.Read(token)
	srv := &server{
		ln: ln, token: hex.EncodeToString(token), allowed: allowed, max: t.opts.MaxToolCalls,
		conns: map[net.Conn]bool{},
		run: func(ctx context.Context, name string, args json.RawMessage, n int) tool.Outcome {
			return exe.Run(ctx, tool.Call{ID: fmt.Sprintf("%s.%d", call.ID, n), Name: name, Args: args, TaskID: call.TaskID, SessionID: call.SessionID})
		},
	}
	runCtx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	go srv.serve(runCtx)
	defer srv.close()

	stdout := newCapture(t.opts.MaxStdout, t.spillFile(), t.saved)
	stderr := newCapture(t.opts.MaxStderr, nil, 0)
	res := &Result{ExitCode: -1}
	exitCode, note, err := t.exec(runCtx, call, script, dir, srv.token, sock, stdout, stderr)
	if err != nil {
		return nil, err
	}
	timedOut := runCtx.Err() != nil
	// A call a thread of the script left running ends with the script.
	cancel()
	srv.close()
	res.ExitCode, res.Note = exitCode, note
	switch {
	case ctx.Err() != nil:
		res.Note = "cancelled: the script and its child processes were killed"
	case timedOut:
		res.Note = fmt.Sprintf("timed out after %s: the script and its child processes were killed", timeout)
	}
	res.Stdout, res.Stderr = stdout.String(), stderr.String()
	res.StdoutFile = stdout.close()
	res.ToolCalls = srv.records()
	if res.ToolCalls == nil {
		res.ToolCalls = []CallRecord{}
	}
	res.ElapsedMS = time.Since(start).Milliseconds()
	return res, nil
}

// exec starts the script in the sandbox and waits for it; on the time
// limit it sends SIGTERM to its process group, then SIGKILL after
// killGrace. Whatever the script left running in its group is killed
// when it exits, so that no child outlives the result.
func (t *Tool) exec(ctx context.Context, call tool.Call, script, dir, token, sock string, stdout, stderr io.Writer) (int, string, error) {
	outR, outW, err := os.Pipe()
	if err != nil {
		return 0, "", err
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		outR.Close()
		outW.Close()
		return 0, "", err
	}
	cmd := exec.Command(t.python, "-S", "-B", script)
	cmd.Dir = t.workdir(call.TaskID)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = nil, outW, errW
	// The Runner calls Cancel when ctx ends; without a sandbox nothing
	// does, so the watcher below sends the signals in both cases.
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM) }
	done := make(chan struct{})
	wait, err := t.opts.Start(ctx, call.SessionID, cmd,
		"PYTHONPATH="+strings.Join(append([]string{dir}, t.sitePath...), string(os.PathListSeparator)), "PYTHONDONTWRITEBYTECODE=1", "PYTHONNOUSERSITE=1", "PYTHONUNBUFFERED=1",
		"PYTHONIOENCODING=utf-8", "PYTHONHOME=", "PYTHONSTARTUP=", "PYTHONINSPECT=", "HERMES_TOOLS_SOCKET="+sock, "HERMES_TOOLS_TOKEN="+token)
	outW.Close()
	errW.Close()
	if err != nil {
		outR.Close()
		errR.Close()
		return 0, "", fmt.Errorf("start %s: %w", t.python, err)
	}
	go func() {
		select {
		case <-done:
			return
		case <-ctx.Done():
		}
		syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM)
		select {
		case <-done:
		case <-time.After(t.grace):
			syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		}
	}()
	var readers sync.WaitGroup
	for _, p := range []struct {
		r *os.File
		w io.Writer
	}{{outR, stdout}, {errR, stderr}} {
		readers.Add(1)
		go func() {
			defer readers.Done()
			io.Copy(p.w, p.r)
		}()
	}
	waitErr := wait()
	close(done)
	syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	// A process that left the group may hold the pipes: stop reading
	// after a moment rather than wait for it.
	finished := make(chan struct{})
	go func() { readers.Wait(); close(finished) }()
	note := ""
	select {
	case <-finished:
	case <-time.After(pipeGrace):
		outR.Close()
		errR.Close()
		<-finished
		note = "a process the script started still held its output; later output is not shown"
	}
	outR.Close()
	errR.Close()
	code := -1
	var ee *exec.ExitError
	switch {
	case waitErr == nil:
		code = cmd.ProcessState.ExitCode()
	case errors.As(waitErr, &ee):
		code = ee.ExitCode()
		if code == -1 && note == "" {
			note = "killed by signal: " + ee.String()
		}
	default:
		return 0, "", fmt.Errorf("wait for the script: %w", waitErr)
	}
	return code, note, nil
}

func (t *Tool) workdir(task string) string {
	if t.opts.Workdir != nil {
		if d := t.opts.Workdir(task); d != "" {
			return d
		}
	}
	wd, _ := os.Getwd()
	return wd
}

// runDir makes the run's private directory (mode 0700) in Dir.
func (t *Tool) runDir() (string, error) {
	base := t.opts.Dir
	if base == "" {
		base = filepath.Join(os.TempDir(), fmt.Sprintf("hermes-%d", os.Getuid()))
	}
	if err := os.MkdirAll(base, 0o700); err != nil {
		return "", fmt.Errorf("make the scripts' directory: %w", err)
	}
	dir, err := os.MkdirTemp(base, "code-")
	if err != nil {
		return "", fmt.Errorf("make the script's directory: %w", err)
	}
	return dir, nil
}

// spillFile opens the file that keeps a long stdout whole.
func (t *Tool) spillFile() func() (*os.File, error) {
	return func() (*os.File, error) {
		dir := t.opts.SpillDir
		if dir == "" {
			dir = filepath.Join(os.TempDir(), "hermes-tool-output")
		}
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return nil, err
		}
		return os.CreateTemp(dir, "execute_code-*.txt")
	}
}
