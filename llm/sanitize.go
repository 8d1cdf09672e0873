package llm

import "strings"

// MissingResultText is the stub content given to a tool call whose result
// is missing from the history.
const MissingResultText = "[Result unavailable — see context summary above]"

// Repairs counts the fixes Sanitize made to a message sequence.
type Repairs struct {
	OrphanResults   int // tool results with no matching call, dropped
	MissingResults  int // tool calls with no result, given a stub result
	MergedUsers     int // consecutive user messages merged
	MergedAssistant int // consecutive assistant messages merged
	DroppedRoles    int // messages with an unknown role, or a stray system message
}

// Total is the number of repairs of every kind.
func (r Repairs) Total() int {
	return r.OrphanResults + r.MissingResults + r.MergedUsers + r.MergedAssistant + r.DroppedRoles
}

// Sanitize returns a copy of msgs that follows the alternation rules:
// after an optional leading system message, user and assistant alternate;
// an assistant with tool calls is followed by exactly one tool message per
// call; only tool messages repeat. Orphan tool results are dropped, a call
// without a result gets a stub result right after its batch, consecutive
// user (or assistant) messages are merged. msgs is not modified.
func Sanitize(msgs []Message) ([]Message, Repairs) {
	var r Repairs
	out := make([]Message, 0, len(msgs)+2)
	var pending []string // call ids of the newest assistant still unanswered
	var pendingNames map[string]string

	flush := func() {
		for _, id := range pending {
			out = append(out, Message{Role: RoleTool, ToolCallID: id, Name: pendingNames[id], Content: MissingResultText})
			r.MissingResults++
		}
		pending, pendingNames = nil, nil
	}
	last := func() *Message {
		if len(out) == 0 {
			return nil
		}
		return &out[len(out)-1]
	}

	for i, m := range msgs {
		switch m.Role {
		case RoleSystem:
			if i == 0 && len(out) == 0 {
				out = append(out, m.Clone())
				continue
			}
			r.DroppedRoles++
		case RoleUser:
			flush()
			if p := last(); p != nil && p.Role == RoleUser {
				p.Content = joinNonEmpty(p.Content, m.Content)
				p.Images = append(p.Images, m.Images...)
				r.MergedUsers++
				continue
			}
			out = append(out, m.Clone())
		case RoleAssistant:
			flush()
			if p := last(); p != nil && p.Role == RoleAssistant {
				p.Content = joinNonEmpty(p.Content, m.Content)
				p.ToolCalls = append(p.ToolCalls, m.ToolCalls...)
				p.Reasoning = joinNonEmpty(p.Reasoning, m.Reasoning)
				r.MergedAssistant++
			} else {
				out = append(out, m.Clone())
			}
			p := last()
			pending = pending[:0]
			pendingNames = map[string]string{}
			seen := map[string]bool{}
			for _, c := range p.ToolCalls {
				if !seen[c.ID] {
					seen[c.ID] = true
					pending = append(pending, c.ID)
					pendingNames[c.ID] = c.Name
				}
			}
		case RoleTool:
			idx := -1
			for j, id := range pending {
				if id == m.ToolCallID {
					idx = j
					break
				}
			}
			if idx < 0 {
				r.OrphanResults++
				continue
			}
			pending = append(pending[:idx], pending[idx+1:]...)
			out = append(out, m.Clone())
		default:
			r.DroppedRoles++
		}
	}
	flush()
	return out, r
}

func joinNonEmpty(a, b string) string {
	switch {
	case strings.TrimSpace(a) == "":
		return b
	case strings.TrimSpace(b) == "":
		return a
	}
	return a + "\n\n" + b
}
