package apiserver

import (
	"strings"

	"github.com/hermes-go/hermes/agent"
)

// runEvents turns the runtime's events into a run's events: the top
// agent's text and reasoning as deltas, every agent's tool calls, and a
// subagent's start and end (delegate_task). The agent calls it from one
// goroutine at a time.
type runEvents struct {
	r         *run
	subagents map[string]bool // seen; true while not yet complete
}

func newRunEvents(r *run) *runEvents { return &runEvents{r: r, subagents: map[string]bool{}} }

// observe is the agent's Observer: it logs the events of the run's turn
// but the top agent's EventDone (the run's end is logged with its
// outcome); those before the turn (compressing the history first) are
// not the run's.
func (x *runEvents) observe(e agent.Event) {
	if e.Kind == agent.EventDone && e.Depth == 0 && e.AgentID == "" {
		return
	}
	x.r.mu.Lock()
	started := !x.r.started.IsZero()
	x.r.mu.Unlock()
	if !started {
		return
	}
	x.on(e)
}

func (x *runEvents) on(e agent.Event) {
	at := e.Time
	if at.IsZero() {
		at = nowTime()
	}
	if e.Depth > 0 && e.AgentID != "" {
		x.subagent(e)
	}
	switch e.Kind {
	case agent.EventTextDelta:
		if e.Depth == 0 {
			x.r.append("message.delta", map[string]any{"delta": e.Text}, true, at)
		}
	case agent.EventReasoningDelta:
		if e.Depth == 0 {
			x.r.append("reasoning.delta", map[string]any{"delta": e.Text}, true, at)
		}
	case agent.EventToolStarted:
		tl := e.Tool
		x.r.append("tool.started", map[string]any{"call_id": tl.CallID, "name": tl.Name, "args_preview": preview(tl.Args, 200),
			"agent_id": e.AgentID, "depth": e.Depth}, false, at)
	case agent.EventToolFinished:
		tl := e.Tool
		x.r.append("tool.completed", map[string]any{"call_id": tl.CallID, "name": tl.Name, "args_preview": preview(tl.Args, 200),
			"duration_ms": tl.Duration.Milliseconds(), "error": tl.IsError, "result_preview": preview(tl.Result, 200),
			"agent_id": e.AgentID, "depth": e.Depth}, false, at)
	case agent.EventStatus, agent.EventWarning, agent.EventRetry, agent.EventFallback, agent.EventCompression:
		if e.Depth == 0 {
			// restart: the text streamed since the last step is void, the
			// answer streams again from its start.
			x.r.append("run.status", map[string]any{"kind": string(e.Kind), "text": e.Text, "restart": e.Restart}, false, at)
		}
	}
}

// subagent reports a subagent's first event as its start, and its end
// (its turn's last event, or its failure to start) as its completion.
func (x *runEvents) subagent(e agent.Event) {
	at := e.Time
	if at.IsZero() {
		at = nowTime()
	}
	id := e.AgentID
	prefix := "subagent " + id + " "
	if _, seen := x.subagents[id]; !seen && e.Kind != agent.EventDone {
		x.subagents[id] = true
		goal := ""
		if e.Kind == agent.EventStatus {
			goal, _ = strings.CutPrefix(e.Text, prefix+"started: ")
		}
		x.r.append("subagent.start", map[string]any{"subagent_id": id, "depth": e.Depth, "goal": goal}, false, at)
	}
	if !x.subagents[id] {
		return
	}
	switch {
	case e.Kind == agent.EventDone && e.Result != nil:
		res := e.Result
		status := runCompleted
		switch {
		case res.Interrupted:
			status = "interrupted"
		case !res.Completed && !res.Partial:
			status = runFailed
		}
		fields := map[string]any{"subagent_id": id, "depth": e.Depth, "status": status, "summary": preview(res.FinalResponse, 200),
			"exit_reason": string(res.ExitReason)}
		if res.Error != nil {
			fields["error"] = res.Error.Error()
		}
		x.subagents[id] = false
		x.r.append("subagent.complete", fields, false, at)
	case e.Kind == agent.EventStatus && strings.HasPrefix(e.Text, prefix+"could not start: "):
		x.subagents[id] = false
		x.r.append("subagent.complete", map[string]any{"subagent_id": id, "depth": e.Depth, "status": runFailed,
			"error": strings.TrimPrefix(e.Text, prefix+"could not start: ")}, false, at)
	}
}
