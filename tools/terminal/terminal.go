package terminal

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"time"

	"github.com/hermes-go/hermes/tool"
)

//go:embed terminal.md
var terminalDescription string

// Terminal is the local command backend shared by the terminal and process
// tools.
type Terminal struct {
	opts  Options
	dirs  *workdirs
	procs *processes
}

// New returns a Terminal. Close it to kill its background processes.
func New(opts Options) *Terminal {
	opts = opts.withDefaults()
	return &Terminal{
		opts:  opts,
		dirs:  &workdirs{base: opts.Dir},
		procs: newProcesses(),
	}
}

// Tools returns the terminal and process tools, ready to register.
func (t *Terminal) Tools() []tool.Tool {
	return []tool.Tool{t.TerminalTool(), t.ProcessTool()}
}

// TerminalTool returns the "terminal" tool.
func (t *Terminal) TerminalTool() tool.Tool { return terminalTool{t} }

// Workdir returns the task's current working directory: where its next
// command will start. File tools resolve relative paths against it.
func (t *Terminal) Workdir(taskID string) string { return t.dirs.get(taskID) }

// Close kills every background process still running.
func (t *Terminal) Close() error {
	t.procs.killAll()
	return nil
}

type terminalArgs struct {
	Command    string   `json:"command"`
	Timeout    *float64 `json:"timeout,omitempty"`
	Workdir    string   `json:"workdir,omitempty"`
	Background bool     `json:"background,omitempty"`
}

var terminalSchema = json.RawMessage(`{
  "type": "object",
  "properties": {
    "command": {"type": "string", "description": "The shell command to run (bash)."},
    "timeout": {"type": "number", "description": "Seconds before the command and all its children are killed. Defaults to the configured timeout."},
    "workdir": {"type": "string", "description": "Directory to run this command in; defaults to the session's working directory."},
    "background": {"type": "boolean", "description": "Start a long-running process (a server, a watcher) and return its id at once; manage it with the process tool."}
  },
  "required": ["command"],
  "additionalProperties": false
}`)

type terminalTool struct{ t *Terminal }

func (tt terminalTool) Spec() tool.Spec {
	return tool.Spec{
		Name:        "terminal",
		Description: terminalDescription,
		Parameters:  terminalSchema,
		Toolset:     "terminal",
		Class:       tool.Sequential,
		// The tool enforces its own per-command timeout and reports it;
		// the executor's deadline is only a backstop past the largest one.
		Timeout: tt.t.opts.MaxTimeout + 30*time.Second,
	}
}

// Command implements tool.Commander.
func (tt terminalTool) Command(args json.RawMessage) (string, bool) {
	var a terminalArgs
	if err := json.Unmarshal(args, &a); err != nil || a.Command == "" {
		return "", false
	}
	return a.Command, true
}

func (tt terminalTool) Run(ctx context.Context, call tool.Call) (tool.Result, error) {
	var a terminalArgs
	if err := json.Unmarshal(call.Args, &a); err != nil {
		return tool.Error("terminal: invalid arguments: " + err.Error()), nil
	}
	if a.Command == "" {
		return tool.Error("terminal: command is empty"), nil
	}
	timeout := tt.t.opts.Timeout
	if a.Timeout != nil {
		if *a.Timeout <= 0 {
			return tool.Error("terminal: timeout must be a positive number of seconds"), nil
		}
		timeout = time.Duration(*a.Timeout * float64(time.Second))
		if timeout > tt.t.opts.MaxTimeout {
			timeout = tt.t.opts.MaxTimeout
		}
	}
	dir, err := tt.t.resolveDir(call.TaskID, a.Workdir)
	if err != nil {
		return tool.Error("terminal: " + err.Error()), nil
	}
	if a.Background {
		p, err := tt.t.startBackground(call.TaskID, a.Command, dir)
		if err != nil {
			return tool.Error("terminal: start background process: " + err.Error()), nil
		}
		return tool.Text(fmt.Sprintf("Started background process %s (pid %d) in %s.\nUse the process tool with id %q to poll, read its log, wait for or kill it.",
			p.id, p.pid, dir, p.id)), nil
	}
	return tt.t.runForeground(ctx, call.TaskID, a.Command, dir, timeout), nil
}
