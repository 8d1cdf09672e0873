package todo

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/hermes-go/hermes/tool"
)

//go:embed todo.md
var description string

// The schema is written by hand, not derived from args: parseTodos
// decodes the list into Patch items (an absent field means "unchanged" in
// a merge, an id may be a number), not into the item shape offered here.
var schema = json.RawMessage(`{
  "type": "object",
  "properties": {
    "todos": {
      "type": "array",
      "items": {
        "type": "object",
        "properties": {
          "id": {"type": "string"},
          "content": {"type": "string", "description": "Required for a new item."},
          "status": {"type": "string", "enum": ["pending", "in_progress", "completed", "cancelled"]},
          "parent": {"type": "string"}
        },
        "required": ["id"]
      }
    },
    "merge": {"type": "boolean"}
  }
}`)

// Persist saves the task list with the session after each change.
type Persist func(ctx context.Context, sessionID string, state json.RawMessage) error

type todoTool struct {
	s       *Store
	persist Persist
}

// NewTool returns the "todo" tool over s. persist, when not nil, is called
// after every change with the call's session id (calls without one are
// not persisted); a failure is reported in the result as a warning.
func NewTool(s *Store, persist Persist) tool.Tool {
	return tool.Must(tool.New(tool.Spec{
		Name:        "todo",
		Description: strings.TrimSpace(description),
		Parameters:  schema,
		Toolset:     "todo",
		Class:       tool.Sequential,
	}, todoTool{s, persist}.run, tool.InvalidArgs(func(err error) tool.Result {
		return errorResult("invalid arguments: " + err.Error())
	})))
}

type args struct {
	Todos json.RawMessage `json:"todos"`
	Merge bool            `json:"merge"`
}

type response struct {
	Todos    []Item  `json:"todos"`
	Revision int     `json:"revision"`
	Summary  Summary `json:"summary"`
	Warning  string  `json:"warning,omitempty"`
}

func (t todoTool) run(ctx context.Context, call tool.Call, a args) (tool.Result, error) {
	var (
		st      State
		changed bool
	)
	if raw := strings.TrimSpace(string(a.Todos)); raw == "" || raw == "null" {
		st = t.s.Get()
	} else {
		items, msg := parseTodos(a.Todos)
		if msg != "" {
			return errorResult(msg), nil
		}
		st, changed = t.s.Write(items, a.Merge)
	}
	res := response{Todos: st.Todos, Revision: st.Revision, Summary: st.Summary()}
	if res.Todos == nil {
		res.Todos = []Item{}
	}
	if changed && t.persist != nil && call.SessionID != "" {
		b, err := t.s.MarshalJSON()
		if err == nil {
			err = t.persist(ctx, call.SessionID, b)
		}
		if err != nil {
			res.Warning = "The list was updated for this session but could not be saved: " + err.Error()
		}
	}
	out, err := json.Marshal(res)
	if err != nil {
		return tool.Result{}, fmt.Errorf("todo: encode result: %w", err)
	}
	return tool.Text(string(out)), nil
}

// parseTodos reads the todos argument: a list, or a JSON string holding
// one (some models send it encoded twice).
func parseTodos(raw json.RawMessage) ([]Patch, string) {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		raw = json.RawMessage(s)
	}
	var items []Patch
	if err := json.Unmarshal(raw, &items); err != nil {
		var v any
		if json.Unmarshal(raw, &v) != nil {
			return nil, "todos is not valid JSON: " + err.Error()
		}
		if _, ok := v.([]any); ok {
			return nil, "each item of todos must be an object {id, content, status}: " + err.Error()
		}
		return nil, fmt.Sprintf("todos must be a list, got %s", jsonType(v))
	}
	return items, ""
}

func jsonType(v any) string {
	switch v.(type) {
	case map[string]any:
		return "object"
	case string:
		return "string"
	case float64:
		return "number"
	case bool:
		return "boolean"
	case nil:
		return "null"
	}
	return fmt.Sprintf("%T", v)
}

func errorResult(msg string) tool.Result {
	b, _ := json.Marshal(map[string]string{"error": msg})
	return tool.Error(string(b))
}
