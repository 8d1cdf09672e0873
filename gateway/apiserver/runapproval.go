package apiserver

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/hermes-go/hermes/config"
	"github.com/hermes-go/hermes/tool/approval"
)

// approvalAfter is the clock of a run's approval timeout.
var approvalAfter = time.After

// approvalChoices are the answers a client may give, in the order
// offered.
var approvalChoices = []string{"once", "session", "always", "deny"}

// How a run's commands needing approval are decided ("approvals" in
// POST /v1/runs).
const (
	approvalsDeny   = "deny"
	approvalsClient = "client"
)

// How a pending approval was resolved.
const (
	resolvedByClient    = "client"
	resolvedByTimeout   = "timeout"
	resolvedByCancelled = "cancelled"
)

// pendingApproval is a command of a run waiting on its client's answer.
type pendingApproval struct {
	id      string
	prompt  approval.Prompt
	created time.Time
	expires time.Time
	answer  chan approval.Choice // gets the one answer
}

// fields describes the approval for the run object and its event.
func (p *pendingApproval) fields() map[string]any {
	findings := make([]map[string]any, len(p.prompt.Findings))
	for i, f := range p.prompt.Findings {
		findings[i] = map[string]any{"key": f.Key, "description": f.Description}
	}
	return map[string]any{
		"approval_id": p.id, "command": p.prompt.Command, "description": p.prompt.Description(),
		"findings": findings, "tool": p.prompt.Tool, "call_id": p.prompt.CallID,
		"choices": approvalChoices, "created_at": p.created.Unix(), "expires_at": p.expires.Unix(),
	}
}

func (r *run) approvalsMode() string {
	if r.askClient {
		return approvalsClient
	}
	return approvalsDeny
}

// approvalTimeout is approvals.timeout, as the CLI waits.
func (s *Server) approvalTimeout() time.Duration {
	if d := config.Seconds(s.opts.Runtime.Config().Approvals.Timeout); d > 0 {
		return d
	}
	return approval.DefaultTimeout
}

// askClient is the Approve of a run whose client answers approvals: the
// runtime's approver calls it for a command it would ask the CLI's user
// about (the allowlist, session approvals and hardline list apply
// first), and does with the answer what it does with the CLI's. No
// answer within approvals.timeout, the run stopping, or the server
// shutting down denies the command.
func (s *Server) askClient(rn *run) func(context.Context, approval.Prompt) (approval.Choice, error) {
	return func(ctx context.Context, p approval.Prompt) (approval.Choice, error) {
		timeout := s.approvalTimeout()
		at := nowTime()
		pa := &pendingApproval{id: newID("apr_"), prompt: p, created: at, expires: at.Add(timeout), answer: make(chan approval.Choice, 1)}
		if !rn.request(pa) {
			return approval.Deny, errors.New("the run is stopping")
		}
		expired := approvalAfter(timeout)
		select {
		case c := <-pa.answer:
			return c, nil
		case <-expired:
			if rn.resolve(pa.id, approval.Deny, resolvedByTimeout) {
				return approval.Deny, fmt.Errorf("no answer from the API client within %s (approvals.timeout)", timeout)
			}
		case <-ctx.Done():
			// The run stopped or the approver gave up waiting.
			by := resolvedByTimeout
			if rn.isStopping() {
				by = resolvedByCancelled
			}
			if rn.resolve(pa.id, approval.Deny, by) {
				return approval.Deny, ctx.Err()
			}
		}
		return <-pa.answer, nil // the client answered first
	}
}

// request records a pending approval and announces it; false when the
// run is ending, so nobody would answer.
func (r *run) request(p *pendingApproval) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.stopping || r.isFinished() {
		return false
	}
	r.pending = append(r.pending, p)
	r.appendLocked("approval.requested", p.fields(), false, p.created)
	return true
}

// resolve answers the pending approval id, announcing how; false when
// no such approval is pending.
func (r *run) resolve(id string, c approval.Choice, by string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	for i, p := range r.pending {
		if p.id != id {
			continue
		}
		r.pending = append(r.pending[:i:i], r.pending[i+1:]...)
		if r.answered == nil {
			r.answered = map[string]string{}
		}
		r.answered[id] = c.String()
		p.answer <- c
		r.appendLocked("approval.resolved", map[string]any{"approval_id": id, "choice": c.String(), "resolved_by": by,
			"command": p.prompt.Command}, false, nowTime())
		return true
	}
	return false
}

func (r *run) isStopping() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.stopping
}

// approvalRequest is a POST /v1/runs/{id}/approval body.
type approvalRequest struct {
	ApprovalID string `json:"approval_id"`
	Choice     string `json:"choice"`
}

func parseChoice(s string) (approval.Choice, bool) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "once":
		return approval.Once, true
	case "session":
		return approval.Session, true
	case "always":
		return approval.Always, true
	case "deny":
		return approval.Deny, true
	}
	return approval.Deny, false
}

// answerApproval answers POST /v1/runs/{id}/approval: the client's
// choice for one pending approval of its run.
func (s *Server) answerApproval(w http.ResponseWriter, r *http.Request) {
	rn := s.lookupRun(w, r)
	if rn == nil {
		return
	}
	var req approvalRequest
	if _, ok := decodeBody(w, r, &req); !ok {
		return
	}
	id := strings.TrimSpace(req.ApprovalID)
	if id == "" {
		badRequest(w, "approval_id", "Missing required parameter: 'approval_id'.")
		return
	}
	c, ok := parseChoice(req.Choice)
	if !ok {
		badRequest(w, "choice", fmt.Sprintf("Invalid 'choice' %q: expected one of once, session, always, deny.", req.Choice))
		return
	}
	if !rn.resolve(id, c, resolvedByClient) {
		rn.mu.Lock()
		prior, done := rn.answered[id]
		rn.mu.Unlock()
		msg := fmt.Sprintf("Run %s has no pending approval '%s'.", rn.id, id)
		if done {
			msg = fmt.Sprintf("Approval '%s' of run %s was already resolved (%s).", id, rn.id, prior)
		}
		writeError(w, http.StatusConflict, typeInvalidRequest, "approval_not_pending", "approval_id", msg)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"object": "run.approval", "run_id": rn.id, "approval_id": id,
		"choice": c.String(), "run": rn.body()})
}
