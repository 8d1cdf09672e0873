package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/hermes-go/hermes/llm"
	"github.com/hermes-go/hermes/tool"
)

func jsonValid(s string) bool { return json.Valid([]byte(s)) }

// afterEvents runs an interactive tool once the events queued before it
// were delivered.
type afterEvents struct {
	tool.Tool
	events *eventQueue
}

func (t afterEvents) Run(ctx context.Context, call tool.Call) (tool.Result, error) {
	t.events.flush()
	return t.Tool.Run(ctx, call)
}

// newExecutor builds the executor: agent-level tools resolve before the
// registry. Whatever talks to the user (an approval prompt, an interactive
// tool such as clarify) first waits until the events before it were
// delivered, so the question never shows above the progress it follows.
func (a *Agent) newExecutor() *tool.Executor {
	local := map[string]tool.Tool{}
	for _, t := range a.cfg.AgentTools {
		if t.Spec().Class == tool.Interactive {
			t = afterEvents{t, a.events}
		}
		local[t.Spec().Name] = t
	}
	var approver tool.Approver
	if a.cfg.Approver != nil {
		approver = tool.ApproverFunc(func(ctx context.Context, req tool.ApprovalRequest) error {
			a.events.flush()
			return a.cfg.Approver.Approve(ctx, req)
		})
	}
	e := &tool.Executor{
		Resolve: func(name string) (tool.Tool, bool) {
			if t, ok := local[name]; ok {
				return t, true
			}
			t, ok := a.cfg.Tools.Get(name)
			if ok && t.Spec().Check != nil && t.Spec().Check() != nil {
				return nil, false // not offered, so not callable
			}
			return t, ok
		},
		Names: func() []string {
			names := a.toolNames()
			return names
		},
		Pre:            a.cfg.PreHooks,
		Post:           a.cfg.PostHooks,
		Approver:       approver,
		Timeout:        a.cfg.ToolTimeout,
		MaxResultChars: a.cfg.MaxResultChars,
		SpillDir:       a.cfg.SpillDir,
		Redact:         a.cfg.Redact,
		Now:            a.cfg.Now,
	}
	e.OnStart = func(c tool.Call) {
		a.emit(Event{Kind: EventToolStarted, Tool: &ToolEvent{CallID: c.ID, Name: c.Name, Args: string(c.Args)}})
	}
	e.OnFinish = func(o tool.Outcome) {
		a.emit(Event{Kind: EventToolFinished, Tool: &ToolEvent{
			CallID: o.Call.ID, Name: o.Call.Name, Args: string(o.Call.Args), Result: o.Result.Content,
			IsError: o.Result.IsError, Status: o.Status, Duration: o.Duration,
		}})
	}
	return e
}

// toolDefs returns what the model is offered: agent-level tools, then the
// registry's available tools.
func (a *Agent) toolDefs() []llm.ToolDef {
	var defs []llm.ToolDef
	seen := map[string]bool{}
	for _, t := range a.cfg.AgentTools {
		s := t.Spec()
		if s.Check != nil && s.Check() != nil {
			continue
		}
		seen[s.Name] = true
		defs = append(defs, tool.Def(s))
	}
	for _, d := range a.cfg.Tools.Defs() {
		if !seen[d.Name] {
			defs = append(defs, d)
		}
	}
	return defs
}

func (a *Agent) toolNames() []string {
	var names []string
	for _, d := range a.toolDefs() {
		names = append(names, d.Name)
	}
	slices.Sort(names)
	return names
}

// runTools appends the assistant tool-call message (persisted before any
// tool runs), runs the calls and appends one result per call in call
// order, each persisted as soon as it and every call before it are done.
func (t *turn) runTools(msg llm.Message) {
	a := t.a
	msg.Content = strings.TrimSpace(stripVisibleThink(msg.Content))
	t.appendMsg(msg)

	sessionID := a.SessionID()
	calls := make([]tool.Call, len(msg.ToolCalls))
	for i, c := range msg.ToolCalls {
		calls[i] = tool.Call{ID: c.ID, Name: c.Name, Args: json.RawMessage(c.Arguments), TaskID: t.taskID, SessionID: sessionID}
	}
	var mu sync.Mutex
	ready := make([]*tool.Outcome, len(calls))
	next := 0
	halt := ""
	flush := func() {
		for next < len(calls) && ready[next] != nil {
			o := ready[next]
			content := o.Result.Content
			if note, stop := t.guard.observe(o); note != "" {
				content += "\n\n" + note
				if stop {
					halt = note
				}
			}
			if next == len(calls)-1 && halt == "" && !t.interrupted() {
				// The round's last result goes to the next model call:
				// what the user added meanwhile rides on it.
				content = t.withSteers(content)
			}
			t.appendMsg(llm.Message{Role: llm.RoleTool, ToolCallID: o.Call.ID, Name: o.Call.Name, Content: content, Time: a.cfg.Now()})
			next++
		}
	}
	a.exec.ExecuteEach(t.ctx, calls, func(i int, o tool.Outcome) {
		mu.Lock()
		defer mu.Unlock()
		ready[i] = &o
		flush()
	})
	mu.Lock()
	flush()
	mu.Unlock()

	switch {
	case t.interrupted():
		t.end(ExitInterrupted, "Operation interrupted while tools were running.", nil)
	case halt != "":
		t.end(ExitGuardrailHalt, "Stopped: the same tool call kept failing. "+halt, fmt.Errorf("tool loop guardrail: %s", halt))
	}
}

func stripVisibleThink(s string) string {
	v, _ := llm.SplitThink(s)
	return v
}

// guardrail watches for the same call (tool and arguments) failing again
// and again within a turn.
type guardrail struct {
	warnAfter, haltAfter int
	fails                map[string]int
}

// observe records an outcome and returns a note to add to its result, and
// whether the turn must stop.
func (g *guardrail) observe(o *tool.Outcome) (string, bool) {
	key := o.Call.Name + "\x00" + string(o.Call.Args)
	if g.fails == nil {
		g.fails = map[string]int{}
	}
	if !o.Result.IsError {
		delete(g.fails, key)
		return "", false
	}
	g.fails[key]++
	n := g.fails[key]
	switch {
	case n >= g.haltAfter:
		return fmt.Sprintf("[GUARDRAIL: %s failed %d times in a row with the same arguments; the turn is stopped.]", o.Call.Name, n), true
	case n >= g.warnAfter:
		return fmt.Sprintf("[GUARDRAIL WARNING: %s has failed %d times in a row with the same arguments. Do not repeat it unchanged; try a different approach.]", o.Call.Name, n), false
	}
	return "", false
}
