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

// Run runs one call of a running tool as Execute runs a call, on the
// calling goroutine, without reporting it to OnStart and OnFinish: those
// observers follow the model's calls (a client pairs each result with a
// call the model made), and see the call that runs this one.
func (e *Executor) Run(ctx context.Context, c Call) Outcome {
	e.init()
	p := e.prepare(c)
	p.quiet = true
	return e.runPrepared(ctx, p)
}
