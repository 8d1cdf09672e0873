package memory

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/hermes-go/hermes/tool"
)

const toolDescription = `Persistent memory, in the system prompt of later sessions (not this one). target memory: your notes; user: the user's profile. add: content; replace: old_text (a substring of exactly one entry) and content; remove: old_text. operations: several edits to one target, all or nothing; only the final size counts against the budget.`

// memoryTool is the "memory" tool over a Store.
type memoryTool struct{ s *Store }

// NewTool returns the memory tool. It is Sequential: edits to the same
// files must not interleave, and their order is the model's order.
func NewTool(s *Store) tool.Tool {
	return tool.Must(tool.New(tool.Spec{
		Name:        "memory",
		Description: toolDescription,
		Toolset:     "memory",
		Class:       tool.Sequential,
	}, memoryTool{s}.run, tool.InvalidArgs(func(err error) tool.Result {
		return jsonResult(Result{Error: "Invalid arguments: " + err.Error()})
	})))
}

type toolArgs struct {
	Action     string `json:"action,omitempty" jsonschema:"Omit when sending operations." enum:"add,replace,remove"`
	Target     Target `json:"target" enum:"memory,user"`
	Content    string `json:"content,omitempty"`
	OldText    string `json:"old_text,omitempty"`
	Operations []Op   `json:"operations,omitempty"`
}

func (t memoryTool) run(ctx context.Context, call tool.Call, a toolArgs) (tool.Result, error) {
	if a.Target == "" {
		a.Target = TargetMemory
	}
	var (
		res Result
		err error
	)
	switch {
	case len(a.Operations) > 0:
		res, err = t.s.Apply(a.Target, a.Operations)
	case a.Action == "":
		res = Result{Target: a.Target, Error: "Give an action (add, replace or remove) or a list of operations."}
	default:
		res, err = t.s.apply(a.Target, []Op{{Action: a.Action, Content: a.Content, OldText: a.OldText}}, false)
	}
	if err != nil {
		return tool.Error(fmt.Sprintf(`{"success":false,"error":%q}`, "Memory could not be saved: "+err.Error())), nil
	}
	return jsonResult(res), nil
}

func jsonResult(r Result) tool.Result {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)              // entries often hold <, > and &
	if err := enc.Encode(r); err != nil { // Result holds only strings and ints
		return tool.Error(fmt.Sprintf(`{"success":false,"error":%q}`, err.Error()))
	}
	return tool.Result{Content: strings.TrimSuffix(b.String(), "\n"), IsError: !r.Success}
}
