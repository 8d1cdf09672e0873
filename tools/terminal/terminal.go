package terminal

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/hermes-go/hermes/backend"
	"github.com/hermes-go/hermes/tool"
)

//go:embed terminal.md
var terminalDescription string

// Terminal is the state the terminal and process tools share: each
// task's working directory and the background processes, over the
// backend the commands run on.
type Terminal struct {
	opts     Options
	be       backend.Backend
	ownBe    bool // be is its own: Close closes it
	dirs     *workdirs
	procs    *processes
	noteOnce sync.Once
}

// New returns a Terminal. Close it to kill its background processes.
// Without Options.Backend it runs commands on this machine
// (backend.Local, from Options' Dir, Shell, Env, EnvPassthrough,
// Sandbox, Runner and NetworkAsk), whose sandbox helper starts in the
// background now, so that the first command finds it ready.
func New(opts Options) *Terminal {
	lazyBase := opts.Backend != nil && opts.Dir == ""
	if lazyBase {
		opts.Dir = "/" // withDefaults must not take this process's directory
	}
	opts = opts.withDefaults()
	t := &Terminal{opts: opts, be: opts.Backend, procs: newProcesses()}
	if t.be == nil {
		t.be, t.ownBe = backend.NewLocal(backend.LocalOptions{Dir: opts.Dir, Shell: opts.Shell, Env: opts.Env,
			EnvPassthrough: opts.EnvPassthrough, Sandbox: opts.Sandbox, Runner: opts.Runner, NetworkAsk: opts.NetworkAsk}), true
	}
	// A given backend's workspace is asked for when needed: a remote
	// one is learnt on connecting, which waits for the first command.
	base := func() string { return opts.Dir }
	if lazyBase {
		base = t.be.Dir
	}
	t.dirs = &workdirs{base: base, fs: t.be.FS()}
	return t
}

// Tools returns the terminal and process tools, ready to register.
func (t *Terminal) Tools() []tool.Tool {
	return []tool.Tool{t.TerminalTool(), t.ProcessTool()}
}

// TerminalTool returns the "terminal" tool.
func (t *Terminal) TerminalTool() tool.Tool {
	return terminalTool{tool.Must(tool.New(tool.Spec{
		Name:        "terminal",
		Description: strings.TrimSpace(terminalDescription) + t.be.Hint(),
		Toolset:     "terminal",
		Class:       tool.Sequential,
		// The tool enforces its own per-command timeout and reports it;
		// the executor's deadline is only a backstop past the largest one.
		Timeout: t.opts.MaxTimeout + 30*time.Second,
	}, t.runCommand))}
}

// Workdir returns the task's current working directory: where its next
// command will start. File tools resolve relative paths against it.
func (t *Terminal) Workdir(taskID string) string { return t.dirs.get(taskID) }

// Close kills every background process still running and, when the
// backend is its own (no Options.Backend), closes it: the sandbox's
// helper stops, unless Options.Runner is someone else's.
func (t *Terminal) Close() error {
	t.procs.killAll()
	if t.ownBe {
		return t.be.Close()
	}
	return nil
}

type terminalArgs struct {
	Command    string   `json:"command"`
	Timeout    *float64 `json:"timeout,omitempty" jsonschema:"Seconds."`
	Workdir    string   `json:"workdir,omitempty"`
	Background bool     `json:"background,omitempty" jsonschema:"Return a process id at once."`
}

// terminalTool is the typed tool plus the command the executor checks
// for approval before the tool runs.
type terminalTool struct{ tool.Tool }

// Command implements tool.Commander.
func (terminalTool) Command(args json.RawMessage) (string, bool) {
	var a terminalArgs
	if err := json.Unmarshal(args, &a); err != nil || a.Command == "" {
		return "", false
	}
	return a.Command, true
}

func (t *Terminal) runCommand(ctx context.Context, call tool.Call, a terminalArgs) (tool.Result, error) {
	if a.Command == "" {
		return tool.Error("terminal: command is empty"), nil
	}
	timeout := t.opts.Timeout
	if a.Timeout != nil {
		if *a.Timeout <= 0 {
			return tool.Error("terminal: timeout must be a positive number of seconds"), nil
		}
		timeout = time.Duration(*a.Timeout * float64(time.Second))
		if timeout > t.opts.MaxTimeout {
			timeout = t.opts.MaxTimeout
		}
	}
	dir, err := t.resolveDir(call.TaskID, a.Workdir)
	if err != nil {
		return tool.Error("terminal: " + err.Error()), nil
	}
	if a.Background {
		p, err := t.startBackground(call.SessionID, call.TaskID, a.Command, dir)
		if err != nil {
			return tool.Error("terminal: start background process: " + err.Error()), nil
		}
		msg := fmt.Sprintf("Started background process %s%s in %s.\nUse the process tool with id %q to poll, read its log, wait for or kill it.",
			p.id, pidNote(p.pid), dir, p.id)
		if note := t.notice(); note != "" {
			msg += "\nnote: " + note
		}
		return tool.Text(msg), nil
	}
	return t.runForeground(ctx, call.SessionID, call.TaskID, a.Command, dir, timeout), nil
}
