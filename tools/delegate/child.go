package delegate

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/google/uuid"

	"github.com/hermes-go/hermes/agent"
	"github.com/hermes-go/hermes/tool"
)

// Child statuses, as the parent reads them.
const (
	StatusCompleted  = "completed"
	StatusIncomplete = "incomplete" // ended without finishing (budget, truncation); its answer is what it produced
	StatusFailed     = "failed"
	StatusInterrupt  = "interrupted"
	StatusTimedOut   = "timed_out"
	StatusNotStarted = "not_started" // the parent was interrupted before a slot was free
)

var errTimedOut = errors.New("subagent timed out")

// spec builds the ChildSpec of task i.
func (d *Tool) spec(i int, t task, parentSession string) (ChildSpec, []string) {
	o := d.o
	n := int(d.seq.Add(1))
	s := ChildSpec{
		Index: i, Number: n,
		AgentID: fmt.Sprintf("%s/%d", o.Parent.AgentID, n), Depth: o.Parent.Depth + 1,
		Goal: t.Goal, Context: t.Context, Toolsets: t.Toolsets,
		TaskID:          uuid.NewString(),
		ParentSessionID: parentSession,
		Approver:        o.ChildApprover,
		MaxIterations:   o.MaxIterations,
		Observer:        d.observer(),
	}
	if o.Parent.Store != nil {
		s.SessionID = o.NewSessionID()
	}
	var notes []string
	s.Tools, notes = d.childTools(t.Toolsets)
	if s.Depth < o.MaxSpawnDepth {
		// The child may delegate one level deeper.
		no := o
		no.Parent.Depth, no.Parent.AgentID, no.ParentSessionID = s.Depth, s.AgentID, s.SessionID
		no.Parent.Tools = s.Tools
		s.AgentTools = []tool.Tool{New(no)}
	}
	s.SystemPrompt = systemPrompt(s, o.Workdir)
	return s, notes
}

// childTools is the parent's registry minus BlockedTools, narrowed to
// toolsets when given; notes name requested toolsets that do not exist.
func (d *Tool) childTools(toolsets []string) (*tool.Registry, []string) {
	var notes []string
	if len(toolsets) > 0 {
		have := d.toolsets()
		var keep []string
		for _, ts := range toolsets {
			if ts == "all" || slices.Contains(have, ts) {
				keep = append(keep, ts)
			} else {
				notes = append(notes, fmt.Sprintf("toolset %q is not available to subagents (have: %v)", ts, have))
			}
		}
		toolsets = keep
		if len(toolsets) == 0 {
			// Nothing valid was asked for: an empty filter would give
			// every tool, so give none rather than more than asked.
			return &tool.Registry{}, append(notes, "the subagent ran without tools")
		}
	}
	return d.o.Parent.Tools.Filter(toolsets, BlockedTools...), notes
}

// runChild runs one child to its end and reports on it.
func (d *Tool) runChild(ctx context.Context, i int, t task, parentSession string) report {
	o := d.o
	spec, notes := d.spec(i, t, parentSession)
	r := report{index: i, goal: t.Goal, agentID: spec.AgentID, sessionID: spec.SessionID, notes: notes}
	start := o.Parent.Now()
	defer func() { r.duration = o.Parent.Now().Sub(start) }()

	child, err := d.build(ctx, spec)
	if err != nil {
		r.status, r.err = StatusFailed, fmt.Errorf("starting the subagent: %w", err)
		d.emit(spec, fmt.Sprintf("subagent %s could not start: %v", spec.AgentID, err))
		return r
	}
	d.emit(spec, fmt.Sprintf("subagent %s started: %s", spec.AgentID, clip(t.Goal, 200)))

	cctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	stopTimer := d.startTimer(func() { cancel(errTimedOut) })
	// Run watches cctx already; Interrupt also stops a child whose model
	// call or tools ignore their context.
	stopInterrupt := context.AfterFunc(cctx, child.Interrupt)
	res, err := child.Run(cctx, agent.Input{Message: t.Goal, SystemMessage: spec.SystemPrompt, TaskID: spec.TaskID})
	stopInterrupt()
	stopTimer()

	switch {
	case err != nil:
		r.status, r.err = StatusFailed, err
	case res.Completed:
		// Done is done, even if the timeout fired as it finished (#93701).
		r.status = StatusCompleted
	case ctx.Err() != nil:
		r.status = StatusInterrupt
	case errors.Is(context.Cause(cctx), errTimedOut):
		r.status = StatusTimedOut
		r.err = fmt.Errorf("no final answer within %s", o.Timeout)
	case res.Interrupted:
		r.status = StatusInterrupt
	case !res.Failed && res.FinalResponse != "" && (res.Partial || res.ExitReason == agent.ExitMaxIterations):
		r.status = StatusIncomplete
	default:
		r.status = StatusFailed
	}
	if res != nil {
		r.fill(res)
	}
	d.emit(spec, fmt.Sprintf("subagent %s %s (%s, %d API calls)", spec.AgentID, r.status, r.exitReason, r.apiCalls))
	return r
}

func (d *Tool) build(ctx context.Context, spec ChildSpec) (*agent.Agent, error) {
	if d.o.NewChild != nil {
		a, err := d.o.NewChild(ctx, spec)
		if err == nil && a == nil {
			err = errors.New("the child builder returned no agent")
		}
		return a, err
	}
	return agent.New(d.o.ChildConfig(spec)), nil
}

// startTimer cancels the child when its timeout passes; 0 means never.
func (d *Tool) startTimer(fire func()) (stop func()) {
	if d.o.Timeout <= 0 {
		return func() {}
	}
	t := time.AfterFunc(d.o.Timeout, fire)
	return func() { t.Stop() }
}

// emit reports a child's lifecycle to the parent's observer.
func (d *Tool) emit(spec ChildSpec, text string) {
	if spec.Observer == nil {
		return
	}
	spec.Observer(agent.Event{Kind: agent.EventStatus, Time: d.o.Parent.Now(), Text: text, AgentID: spec.AgentID, Depth: spec.Depth})
}
