package delegate

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/hermes-go/hermes/agent"
	"github.com/hermes-go/hermes/tool"
)

// Tool is delegate_task. Create it with New.
type Tool struct {
	o     Options
	seq   atomic.Int64 // children started, for their AgentIDs
	relay atomic.Pointer[agent.Observer]
}

// RelayEvents makes emit (the parent agent's event sink) receive the
// children's events instead of Options.Observer: agent.New calls it, so
// that they reach the parent's observer in order with its own.
func (d *Tool) RelayEvents(emit agent.Observer) { d.relay.Store(&emit) }

// observer is where children's events go.
func (d *Tool) observer() agent.Observer {
	if p := d.relay.Load(); p != nil {
		return *p
	}
	return d.o.Observer
}

// New returns the tool.
func New(o Options) *Tool {
	o.defaults()
	return &Tool{o: o}
}

// task is one goal of a call.
type task struct {
	Goal     string   `json:"goal"`
	Context  string   `json:"context"`
	Toolsets []string `json:"toolsets"`
}

type args struct {
	task
	Tasks []task `json:"tasks"`
}

// The schema is written by hand, not derived with tool.New: args embeds
// one task type whose goal is optional at the top level (tasks may be given
// instead) but required in each item of tasks, and the tool's description
// is computed on every Spec call.
const schema = `{
  "type": "object",
  "properties": {
    "tasks": {
      "type": "array",
      "items": {
        "type": "object",
        "properties": {
          "goal": {"type": "string"},
          "context": {"type": "string"},
          "toolsets": {"type": "array", "items": {"type": "string"}}
        },
        "required": ["goal"]
      }
    }
  }
}`

// Spec describes the tool; the description shows the current limits.
func (d *Tool) Spec() tool.Spec {
	o := d.o
	desc := fmt.Sprintf("Run independent, well-defined subtasks that would flood your context in subagents. Each task: "+
		"goal, context, toolsets (narrowing your tools); %d run at once. A subagent sees nothing of this conversation: "+
		"give it all it needs in goal and context. It has %d iterations and your tools except %s, cannot ask questions, "+
		"and dangerous commands may be refused. Returns each one's summary and status.",
		o.MaxConcurrentChildren, o.MaxIterations, strings.Join(blockedHere, ", "))
	if ts := d.toolsets(); len(ts) > 0 {
		desc += " Toolsets: " + strings.Join(ts, ", ") + "."
	}
	return tool.Spec{
		Name:        Name,
		Description: desc,
		Parameters:  json.RawMessage(schema),
		Toolset:     "delegation",
		Class:       tool.Sequential,
		NoTimeout:   true,
		Check:       d.depthAllows,
	}
}

// depthAllows keeps the tool from being offered to an agent at the
// depth limit, where every call would be refused.
func (d *Tool) depthAllows() error {
	if d.o.Parent.Depth >= d.o.MaxSpawnDepth {
		return fmt.Errorf("delegate_task: depth %d is delegation.max_spawn_depth", d.o.Parent.Depth)
	}
	return nil
}

// toolsets lists the toolsets children may be given.
func (d *Tool) toolsets() []string {
	var out []string
	for _, n := range d.o.Parent.Tools.Names() {
		if slices.Contains(BlockedTools, n) {
			continue
		}
		t, _ := d.o.Parent.Tools.Get(n)
		if ts := t.Spec().Toolset; ts != "" && !slices.Contains(out, ts) {
			out = append(out, ts)
		}
	}
	slices.Sort(out)
	return out
}

// Run runs the call's tasks and reports on every one of them.
func (d *Tool) Run(ctx context.Context, call tool.Call) (tool.Result, error) {
	o := d.o
	if o.Parent.Depth >= o.MaxSpawnDepth {
		return tool.Error(fmt.Sprintf("delegate_task refused: this agent is at delegation depth %d and delegation.max_spawn_depth is %d, "+
			"so it cannot start subagents. Do the work yourself with your own tools.", o.Parent.Depth, o.MaxSpawnDepth)), nil
	}
	if o.NewChild == nil && o.Parent.Client == nil {
		return tool.Error("delegate_task is not available: no model client is configured for subagents."), nil
	}
	tasks, bad := parse(call.Args)
	if bad != "" {
		return tool.Error("delegate_task: " + bad), nil
	}
	parent := call.SessionID
	if parent == "" {
		parent = o.ParentSessionID
	}

	reports := make([]report, len(tasks))
	sem := make(chan struct{}, o.MaxConcurrentChildren)
	var wg sync.WaitGroup
	// Slots are taken in task order, so the first tasks start first.
	for i, t := range tasks {
		if !acquire(ctx, sem) {
			for j := i; j < len(tasks); j++ {
				reports[j] = notStarted(j, tasks[j])
			}
			break
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			reports[i] = d.runChild(ctx, i, t, parent)
		}()
	}
	wg.Wait()
	return render(reports), nil
}

// acquire takes a slot, or reports false once ctx is done: a task must
// not start after the parent was interrupted, even if a slot is free.
func acquire(ctx context.Context, sem chan struct{}) bool {
	if ctx.Err() != nil {
		return false
	}
	select {
	case sem <- struct{}{}:
		if ctx.Err() != nil {
			<-sem
			return false
		}
		return true
	case <-ctx.Done():
		return false
	}
}

// parse reads the call's arguments: one task or a batch.
func parse(raw json.RawMessage) ([]task, string) {
	var a args
	if err := json.Unmarshal(raw, &a); err != nil {
		return nil, "invalid arguments: " + err.Error()
	}
	tasks := a.Tasks
	if len(tasks) > 0 && strings.TrimSpace(a.Goal) != "" {
		return nil, "give either goal (one task) or tasks (a batch), not both; no task was started."
	}
	if len(tasks) == 0 {
		if strings.TrimSpace(a.Goal) == "" {
			return nil, "give a goal (one task) or tasks (a batch); neither was given."
		}
		tasks = []task{a.task}
	}
	for i, t := range tasks {
		if strings.TrimSpace(t.Goal) == "" {
			return nil, fmt.Sprintf("tasks[%d] has no goal; no task was started.", i)
		}
	}
	return tasks, ""
}
