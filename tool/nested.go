package tool

import "context"

// executorKey is the context key under which a running tool finds the
// Executor that runs it.
type executorKey struct{}

// ExecutorFrom returns the Executor running the tool whose context ctx is
// (or is derived from), nil outside a tool call. A tool that runs other
// tools (execute_code) calls them through it, so that each nested call
// passes the same pre and post hooks, approvals, redaction and result cap
// as a call of the model's.
func ExecutorFrom(ctx context.Context) *Executor {
	e, _ := ctx.Value(executorKey{}).(*Executor)
	return e
}

// Run runs one call as Execute does, on the calling goroutine.
func (e *Executor) Run(ctx context.Context, c Call) Outcome {
	return e.Execute(ctx, []Call{c})[0]
}
