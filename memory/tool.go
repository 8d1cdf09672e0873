package memory

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/hermes-go/hermes/tool"
)

const toolDescription = `Save durable facts to persistent memory that is loaded into every future session's system prompt. Two targets: "memory" for your own notes (environment facts, project conventions, tool quirks, lessons learned) and "user" for what you know about the user (preferences, communication style, role, recurring needs).

Save only what will matter in EVERY future session regardless of task; a fact that goes stale within a week belongs in session history, not here. Write declarative facts, not instructions to yourself: "User prefers concise answers" rather than "Always answer concisely".

Actions: add (content), replace (old_text: a short unique substring of the entry, content: the new entry), remove (old_text). Each target has a hard character budget; when it is full, replace or remove stale entries instead of skipping the save. Several edits to one target can be sent at once in operations; they apply all or nothing and only the final size counts. Changes are saved at once but appear in the system prompt from the next session on.`

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
	Action     string `json:"action,omitempty" jsonschema:"What to do (omit when sending operations)." enum:"add,replace,remove"`
	Target     Target `json:"target" jsonschema:"memory: your notes; user: the user profile." enum:"memory,user"`
	Content    string `json:"content,omitempty" jsonschema:"The entry to add, or the replacement entry."`
	OldText    string `json:"old_text,omitempty" jsonschema:"A short substring that identifies exactly one existing entry (replace, remove)."`
	Operations []Op   `json:"operations,omitempty" jsonschema:"Several edits to the same target, applied all or nothing."`
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
