package agent

import (
	"context"
	"encoding/json"

	"github.com/google/uuid"

	"github.com/hermes-go/hermes/llm"
	"github.com/hermes-go/hermes/tool"
)

// RunTool runs one tool call on the user's behalf (a shell escape such as
// `!ls` in a chat), through the same executor as the model's calls: the
// approval policy, the hooks, the sandbox of the tool, redaction and the
// result cap. Its events (EventToolStarted, EventToolFinished) reach the
// observers; nothing enters the history. It may not run during a turn
// (ErrBusy); Interrupt stops it.
func (a *Agent) RunTool(ctx context.Context, name string, args json.RawMessage) (tool.Outcome, error) {
	a.mu.Lock()
	if a.running {
		a.mu.Unlock()
		return tool.Outcome{}, ErrBusy
	}
	ctx, cancel := context.WithCancelCause(ctx)
	a.running, a.interrupt = true, cancel
	sessionID := a.session.ID
	a.mu.Unlock()
	defer func() {
		cancel(nil)
		a.events.flush()
		a.mu.Lock()
		a.running, a.interrupt = false, nil
		a.mu.Unlock()
	}()
	call := tool.Call{ID: "user_" + uuid.NewString()[:8], Name: name, Args: args, TaskID: "user", SessionID: sessionID}
	out := a.exec.Execute(ctx, []tool.Call{call})
	return out[0], nil
}

// ToolDefs lists the tools the model is offered now, as it sees them.
func (a *Agent) ToolDefs() []llm.ToolDef {
	return a.toolDefs()
}

// ToolSpecs lists the specs of the tools the model is offered now, in the
// order of ToolDefs.
func (a *Agent) ToolSpecs() []tool.Spec {
	byName := map[string]tool.Spec{}
	for _, t := range a.cfg.AgentTools {
		byName[t.Spec().Name] = t.Spec()
	}
	var out []tool.Spec
	for _, d := range a.toolDefs() {
		s, ok := byName[d.Name]
		if !ok {
			if t, found := a.cfg.Tools.Get(d.Name); found {
				s = t.Spec()
			}
		}
		out = append(out, s)
	}
	return out
}

// Execute runs calls through the agent's executor as the loop would
// (agent-level tools first, hooks, approvals, the deadline, the result
// cap, masking), outside any turn, and returns their outcomes in call
// order. A durable engine that replays the loop elsewhere runs each
// recorded tool call here. Safe for concurrent use.
func (a *Agent) Execute(ctx context.Context, calls []tool.Call) []tool.Outcome {
	return a.exec.Execute(ctx, calls)
}
