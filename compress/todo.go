package compress

import (
	"strings"
)

// Todo is one item of the agent's task list, as the todo tool keeps it.
type Todo struct {
	ID      string
	Content string
	// Status is pending, in_progress, completed or cancelled.
	Status string
	// Parent is the id of the enclosing item, "" at the top level.
	Parent string
}

// FormatTodos renders the active part of a todo list for re-injection:
// pending and in_progress items and their ancestors, one line each,
// "{indent}- {[x]|[>]|[ ]|[~]} {id}. {content} ({status})". It returns ""
// when nothing is active.
func FormatTodos(todos []Todo) string {
	byID := make(map[string]*Todo, len(todos))
	for i := range todos {
		byID[todos[i].ID] = &todos[i]
	}
	keep := map[string]bool{}
	for _, t := range todos {
		if t.Status != "pending" && t.Status != "in_progress" {
			continue
		}
		// Mark the item and its ancestors; the seen set stops cycles.
		seen := map[string]bool{}
		for id := t.ID; id != "" && !seen[id]; {
			seen[id] = true
			keep[id] = true
			p, ok := byID[id]
			if !ok {
				break
			}
			id = p.Parent
		}
	}
	if len(keep) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString(TodoHeader)
	for _, t := range todos {
		if !keep[t.ID] {
			continue
		}
		b.WriteString("\n")
		b.WriteString(strings.Repeat("  ", depth(t, byID)))
		b.WriteString("- ")
		b.WriteString(todoMark(t.Status))
		b.WriteString(" ")
		b.WriteString(t.ID)
		b.WriteString(". ")
		b.WriteString(t.Content)
		b.WriteString(" (")
		b.WriteString(t.Status)
		b.WriteString(")")
	}
	return b.String()
}

func depth(t Todo, byID map[string]*Todo) int {
	d := 0
	seen := map[string]bool{t.ID: true}
	for p := t.Parent; p != "" && !seen[p]; d++ {
		seen[p] = true
		pt, ok := byID[p]
		if !ok {
			break
		}
		p = pt.Parent
	}
	return d
}

func todoMark(status string) string {
	switch status {
	case "completed":
		return "[x]"
	case "in_progress":
		return "[>]"
	case "cancelled":
		return "[~]"
	}
	return "[ ]"
}
