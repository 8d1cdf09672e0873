package backend

import (
	"context"
	"io"
	"io/fs"
	"os/exec"
)

// Backend is where a conversation's commands run and its files live.
// The terminal, process, file and execute_code tools are written once
// against it; a Backend is bound to one workspace and used by one
// conversation's tools (a workspace shared by several conversations
// shares its Backend), concurrently: every method is safe for
// concurrent use.
type Backend interface {
	// Name is the backend's kind as terminal.backend spells it:
	// "local", "ssh" or "docker".
	Name() string
	// Describe is one line saying where commands run and what is
	// enforced there, for `hermes sandbox status`, the status line and
	// the usage file, e.g. "ssh user@host:22: commands run on the remote
	// host; the local sandbox does not apply; host key checked;
	// forward_env: none".
	Describe() string
	// Dir is the workspace on the backend: the absolute directory every
	// task starts in, and against which relative paths resolve.
	Dir() string

	// Run runs c in the foreground and returns when the command has
	// ended and every process it started has been killed (no process of
	// a foreground command outlives its result). When ctx ends first,
	// the command and all it started are killed and Run returns with
	// Exit.Code -1; the caller tells a timeout from a cancel by its own
	// contexts. The error is for a command that could not be started
	// at all (nothing ran); a command that ran and failed is an Exit.
	Run(ctx context.Context, c Command) (Exit, error)
	// Start starts c in the background, detached from any call: it
	// lives until it exits, is killed, or the Backend is closed. Its
	// stdout and stderr go to c.Stdout (c.Stderr may be the same
	// writer). Exit.Dir of a background command is not used.
	Start(c Command) (Process, error)

	// FS is the file system the file tools read and write, in the
	// backend's paths (what a command there sees).
	FS() FS
	// CheckRead says whether a file tool may read path (absolute, on the
	// backend); the error is shown to the model as the refusal.
	CheckRead(path string) error
	// CheckWrite says whether a file tool may create, change or delete
	// path (absolute, on the backend).
	CheckWrite(path string) error

	// Hint is added to the terminal tool's description: what a command
	// may do there (the sandbox's limits, "commands run on host X"); ""
	// when there is nothing to say.
	Hint() string
	// Notice is said once, in the first command's result, when the
	// model should know something the description does not say (the
	// sandbox is only partly enforced); "" for nothing.
	Notice() string

	// Close kills every background process still running and releases
	// what the backend holds (connections, helpers, containers not
	// asked to persist).
	Close() error
}

// Command is one shell command line to run on a backend.
type Command struct {
	// Line is the command line, run by the backend's shell (bash -c, or
	// sh where bash is missing).
	Line string
	// Dir is the absolute directory, on the backend, it starts in.
	Dir string
	// Session is the id of the session it runs for (a sandbox network
	// question goes to that session's person).
	Session string
	// Task is the id of the task it runs for: a backend that carries
	// shell state between commands (exported variables over SSH) keeps
	// it per task.
	Task string
	// Env are more "KEY=value" variables, set after the backend's own
	// environment (which leaves out the agent's secrets, see each
	// backend).
	Env []string
	// Stdout and Stderr receive the command's output as it comes. Run
	// writes each from one goroutine at a time.
	Stdout, Stderr io.Writer
}

// Exit is how a command ended.
type Exit struct {
	// Code is the exit status; -1 when there is none (killed by a
	// signal, cancelled, the connection lost).
	Code int
	// Dir is the shell's working directory when it ended (after a `cd`),
	// absolute on the backend; "" when unknown. The terminal makes it
	// the task's directory for the next command.
	Dir string
	// Note says what the model should know about how it ended ("killed
	// by signal: killed", "the command left a background process holding
	// its output; later output is not shown"); "" for nothing.
	Note string
}

// Process is a background command started by Backend.Start.
type Process interface {
	// Pid is its process id on the backend (0 when the backend has none
	// to show).
	Pid() int
	// Done is closed once it has ended.
	Done() <-chan struct{}
	// Exit is how it ended; valid once Done is closed.
	Exit() Exit
	// Kill kills it and every process it started; Done closes soon after.
	Kill() error
}

// FS is a backend's file system, as the file tools use it. Paths are
// absolute, in the backend's syntax (slash-separated). Errors for a
// missing file satisfy errors.Is(err, fs.ErrNotExist).
type FS interface {
	Stat(path string) (fs.FileInfo, error)
	Lstat(path string) (fs.FileInfo, error)
	// Open opens a file for reading. It must not block on a FIFO; the
	// caller checks the opened file's Stat is a regular file.
	Open(path string) (File, error)
	// ReadDir lists a directory, in no particular order.
	ReadDir(path string) ([]fs.DirEntry, error)
	// EvalSymlinks is path with symbolic links resolved (the file a
	// link points to), as filepath.EvalSymlinks.
	EvalSymlinks(path string) (string, error)
	MkdirAll(path string, perm fs.FileMode) error
	// CreateTemp creates a new file in dir, as os.CreateTemp.
	CreateTemp(dir, pattern string) (TempFile, error)
	Chmod(path string, mode fs.FileMode) error
	// Rename moves oldpath to newpath, replacing newpath atomically.
	Rename(oldpath, newpath string) error
	Remove(path string) error
	// Home is the home directory ("~/" in a path), "" when unknown.
	Home() string
}

// File is a file open for reading (*os.File is one).
type File interface {
	io.ReadCloser
	Stat() (fs.FileInfo, error)
}

// TempFile is a file open for writing (*os.File is one).
type TempFile interface {
	io.WriteCloser
	Name() string
	// Sync flushes the file to stable storage where the backend can.
	Sync() error
}

// Programs is implemented by a backend that can run a program of this
// machine as one of its commands: execute_code's scripts, which talk to
// hermes over a Unix socket. The local backend does; a backend without
// it (ssh) has execute_code refused, saying why.
type Programs interface {
	// StartProgram starts cmd as a foreground command of session starts
	// (in the sandbox, in a process group of its own, with the
	// environment of a command followed by env) and returns the function
	// to wait for it with; cmd.Cancel and cmd.WaitDelay are the
	// caller's.
	StartProgram(ctx context.Context, session string, cmd *exec.Cmd, env ...string) (wait func() error, err error)
}
