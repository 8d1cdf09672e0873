package terminal

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/hermes-go/hermes/sandbox"
	"github.com/hermes-go/hermes/tool"
)

//go:embed terminal.md
var terminalDescription string

// Terminal is the local command backend shared by the terminal and process
// tools.
type Terminal struct {
	opts      Options
	dirs      *workdirs
	procs     *processes
	noteOnce  sync.Once
	runner    *sandbox.Runner // nil without a sandbox
	ownRunner bool            // runner is its own: Close closes it
}

// New returns a Terminal. Close it to kill its background processes.
// The sandbox's helper starts in the background now, so that the first
// command finds it ready.
func New(opts Options) *Terminal {
	opts = opts.withDefaults()
	t := &Terminal{
		opts:  opts,
		dirs:  &workdirs{base: opts.Dir},
		procs: newProcesses(),
	}
	if p := opts.Sandbox; p != nil && p.Mode != sandbox.FullAccess {
		t.runner = opts.Runner
		if t.runner == nil {
			t.runner, t.ownRunner = p.NewRunner(), true
		}
	}
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
		Description: strings.TrimSpace(terminalDescription) + t.sandboxHint(),
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

// Close kills every background process still running and stops the
// sandbox's helper, unless Options.Runner is someone else's.
func (t *Terminal) Close() error {
	t.procs.killAll()
	if t.ownRunner {
		t.runner.Close()
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
		msg := fmt.Sprintf("Started background process %s (pid %d) in %s.\nUse the process tool with id %q to poll, read its log, wait for or kill it.",
			p.id, p.pid, dir, p.id)
		if note := t.sandboxNote(); note != "" {
			msg += "\nnote: " + note
		}
		return tool.Text(msg), nil
	}
	return t.runForeground(ctx, call.SessionID, call.TaskID, a.Command, dir, timeout), nil
}
