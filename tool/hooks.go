package tool

import (
	"context"
	"time"
)

// Status is how a call ended, as post_tool_call hooks see it.
type Status string

// Call statuses.
const (
	StatusOK        Status = "ok"
	StatusError     Status = "error"
	StatusBlocked   Status = "blocked"
	StatusCancelled Status = "cancelled"
	StatusTimeout   Status = "timeout"
)

// PreHook runs before a call. It may rewrite the arguments (by modifying
// call.Args) or block the call by returning a non-empty reason, which the
// model reads. A returned error blocks the call too.
type PreHook func(ctx context.Context, call *Call) (block string, err error)

// PostHook runs once after every call, whatever its outcome. It may
// rewrite the result.
type PostHook func(ctx context.Context, call Call, res *Result, st Status, d time.Duration)

// ApprovalRequest asks whether a command may run.
type ApprovalRequest struct {
	Command string
	Tool    string
	CallID  string
	TaskID  string
	// SessionID is the conversation the call belongs to.
	SessionID string
}

// Approver is the dangerous-command check with its approval callback. It
// returns nil to let the command run, or an error whose text tells the
// model why it did not (denied, refused, timed out). It must fail closed:
// when nobody can answer, deny.
type Approver interface {
	Approve(ctx context.Context, req ApprovalRequest) error
}

// ApproverFunc adapts a function to Approver.
type ApproverFunc func(ctx context.Context, req ApprovalRequest) error

// Approve calls f.
func (f ApproverFunc) Approve(ctx context.Context, req ApprovalRequest) error { return f(ctx, req) }
