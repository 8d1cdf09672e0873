package tool

import (
	"context"
	"encoding/json"
	"time"
)

// Tool is something the model can call.
type Tool interface {
	Spec() Spec
	// Run executes one call. Failures the model should read are returned
	// as a Result with IsError set; a returned error is reported to the
	// model as a failure too, with its text.
	Run(ctx context.Context, call Call) (Result, error)
}

// Class says what a tool may run beside.
type Class int

// Concurrency classes.
const (
	// Parallel tools may overlap with any other parallel or path-scoped call.
	Parallel Class = iota
	// PathScoped tools may overlap unless their paths overlap and one writes.
	PathScoped
	// Sequential tools run alone, in order, between parallel runs.
	Sequential
	// Interactive tools talk to the user; they never run beside another call.
	Interactive
)

func (c Class) String() string {
	switch c {
	case Parallel:
		return "parallel"
	case PathScoped:
		return "path-scoped"
	case Sequential:
		return "sequential"
	case Interactive:
		return "interactive"
	}
	return "unknown"
}

// Spec describes a tool to the model and to the executor.
type Spec struct {
	Name        string
	Description string
	// Parameters is the JSON schema of the arguments object. Empty means
	// an object with no properties.
	Parameters json.RawMessage
	// Toolset groups tools for --toolsets (e.g. "terminal", "file").
	Toolset string
	Class   Class
	// Timeout bounds one call; 0 means the executor's default.
	Timeout time.Duration
	// NoTimeout exempts the tool from deadlines (delegate_task).
	NoTimeout bool
	// MaxResultChars overrides the executor's result cap; 0 is the default.
	MaxResultChars int
	// Check reports whether the tool can be offered now (a binary is
	// installed, a key is set). A tool whose Check fails is not offered.
	Check func() error
	// Paths returns the paths a PathScoped call touches and whether it
	// writes them. Nil means the tool is treated as Sequential.
	Paths func(args json.RawMessage) (paths []string, writes bool)
}

// Call is one invocation of a tool.
type Call struct {
	ID   string
	Name string
	// Args is the arguments object (valid JSON, checked against the schema).
	Args json.RawMessage
	// TaskID isolates per-task state (terminal sessions, file caches).
	TaskID string
	// SessionID is the conversation's session, when there is one.
	SessionID string
}

// Result is what the model reads back.
type Result struct {
	Content string
	IsError bool
}

// Text returns a successful result.
func Text(s string) Result { return Result{Content: s} }

// Errorf-style helpers live with their callers; Error returns a failed result.
func Error(s string) Result { return Result{Content: s, IsError: true} }

// Commander is implemented by tools whose arguments carry a shell command.
// The executor passes the command through the dangerous-command check
// before the tool runs.
type Commander interface {
	Command(args json.RawMessage) (cmd string, ok bool)
}

// Func is a Tool made from a Spec and a function.
type Func struct {
	S  Spec
	Fn func(ctx context.Context, call Call) (Result, error)
}

// Spec returns the spec.
func (f Func) Spec() Spec { return f.S }

// Run calls the function.
func (f Func) Run(ctx context.Context, call Call) (Result, error) { return f.Fn(ctx, call) }
