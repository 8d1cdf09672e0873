package openai

import (
	"encoding/json"
	"slices"
	"strings"
)

// reasoningParts joins reasoning text gathered from several sources
// (reasoning, reasoning_content, reasoning_details, <think> blocks).
// Providers often send the same thought through two of them, so a part
// equal to or contained in one already kept is dropped.
type reasoningParts struct{ parts []string }

func (r *reasoningParts) add(s string) {
	t := strings.TrimSpace(s)
	if t == "" {
		return
	}
	for i, p := range r.parts {
		if strings.Contains(p, t) {
			return
		}
		if strings.Contains(t, p) {
			r.parts[i] = t
			return
		}
	}
	r.parts = append(r.parts, t)
}

func (r *reasoningParts) String() string { return strings.Join(r.parts, "\n\n") }

// detailText is the readable text of one OpenRouter-style reasoning_details
// entry: summary, then text, thinking, content. Encrypted entries have none.
func detailText(raw []byte) string {
	var d struct {
		Summary  any `json:"summary"`
		Text     any `json:"text"`
		Thinking any `json:"thinking"`
		Content  any `json:"content"`
	}
	if json.Unmarshal(raw, &d) != nil {
		return ""
	}
	for _, v := range []any{d.Summary, d.Text, d.Thinking, d.Content} {
		if s := textOf(v); s != "" {
			return s
		}
	}
	return ""
}

// textOf flattens a string, or a list of strings / {"text": ...} parts.
func textOf(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case []any:
		var parts []string
		for _, e := range x {
			if s := textOf(e); s != "" {
				parts = append(parts, s)
			}
		}
		return strings.Join(parts, "\n")
	case map[string]any:
		return textOf(x["text"])
	}
	return ""
}

// detailMerger rebuilds whole reasoning_details entries from streamed
// fragments: OpenRouter sends one fragment per chunk, each a slice of the
// entry's text with the entry's index. Text fields concatenate; any other
// field (signature, data, format, id) keeps its last non-null value.
type detailMerger struct {
	entries []map[string]any
	byIndex map[float64]int
}

var concatFields = []string{"text", "summary", "thinking"}

func (m *detailMerger) add(raw []byte) {
	var frags []map[string]any
	if json.Unmarshal(raw, &frags) != nil {
		return
	}
	for _, f := range frags {
		slot := -1
		if idx, ok := f["index"].(float64); ok {
			if s, seen := m.byIndex[idx]; seen {
				slot = s
			} else {
				if m.byIndex == nil {
					m.byIndex = map[float64]int{}
				}
				m.byIndex[idx] = len(m.entries)
			}
		} else if n := len(m.entries); n > 0 && m.entries[n-1]["type"] == f["type"] {
			slot = n - 1
		}
		if slot < 0 {
			m.entries = append(m.entries, f)
			continue
		}
		e := m.entries[slot]
		for k, v := range f {
			if v == nil {
				continue
			}
			if s, ok := v.(string); ok && slices.Contains(concatFields, k) {
				prev, _ := e[k].(string)
				e[k] = prev + s
				continue
			}
			e[k] = v
		}
	}
}

// raw returns the merged entries as JSON, one per entry.
func (m *detailMerger) raw() []json.RawMessage {
	if len(m.entries) == 0 {
		return nil
	}
	out := make([]json.RawMessage, 0, len(m.entries))
	for _, e := range m.entries {
		if b, err := json.Marshal(e); err == nil {
			out = append(out, b)
		}
	}
	return out
}

// thinkTags are the inline reasoning tags llm.SplitThink recognises.
var thinkTags = []string{"think", "thinking", "reasoning", "reasoning_scratchpad", "thought"}

const maxThinkTag = len("</reasoning_scratchpad>")

// thinkSplitter routes streamed content inside <think>…</think> (and the
// other inline reasoning tags) to reasoning instead of visible text, so a
// sink never shows raw thinking. Tags split across chunks are held back
// until they can be decided.
type thinkSplitter struct {
	in      bool
	closing string // lower-case close tag while in a block
	pending string
}

// feed splits the next content fragment.
func (t *thinkSplitter) feed(s string) (visible, reasoning string) {
	if t.pending == "" && !t.in && !strings.Contains(s, "<") {
		return s, ""
	}
	buf := t.pending + s
	t.pending = ""
	var vis, rsn strings.Builder
	for buf != "" {
		if t.in {
			i := indexFold(buf, t.closing)
			if i < 0 {
				keep := partialSuffix(buf, []string{t.closing})
				rsn.WriteString(buf[:len(buf)-keep])
				t.pending = buf[len(buf)-keep:]
				break
			}
			rsn.WriteString(buf[:i])
			buf = buf[i+len(t.closing):]
			t.in = false
			continue
		}
		i := strings.IndexByte(buf, '<')
		if i < 0 {
			vis.WriteString(buf)
			break
		}
		vis.WriteString(buf[:i])
		buf = buf[i:]
		if tag, ok := openTagAt(buf); ok {
			t.in, t.closing = true, "</"+tag+">"
			buf = buf[len(tag)+2:]
			continue
		}
		if len(buf) < maxThinkTag && couldOpen(buf) {
			t.pending = buf
			break
		}
		vis.WriteByte('<')
		buf = buf[1:]
	}
	return vis.String(), rsn.String()
}

// flush returns what was held back at the end of the stream.
func (t *thinkSplitter) flush() (visible, reasoning string) {
	p := t.pending
	t.pending = ""
	if t.in {
		return "", p
	}
	return p, ""
}

func openTagAt(s string) (string, bool) {
	for _, tag := range thinkTags {
		if len(s) >= len(tag)+2 && s[len(tag)+1] == '>' && strings.EqualFold(s[1:len(tag)+1], tag) {
			return tag, true
		}
	}
	return "", false
}

// couldOpen reports whether s (starting with '<') may grow into an open tag.
func couldOpen(s string) bool {
	for _, tag := range thinkTags {
		full := "<" + tag + ">"
		if len(s) < len(full) && strings.EqualFold(s, full[:len(s)]) {
			return true
		}
	}
	return false
}

// partialSuffix is the length of the longest suffix of s that is a proper
// prefix of one of tags (case-insensitive).
func partialSuffix(s string, tags []string) int {
	best := 0
	for _, tag := range tags {
		for n := min(len(tag)-1, len(s)); n > best; n-- {
			if strings.EqualFold(s[len(s)-n:], tag[:n]) {
				best = n
				break
			}
		}
	}
	return best
}

// indexFold finds the ASCII tag sub in s, ignoring case.
func indexFold(s, sub string) int {
	for i := 0; i+len(sub) <= len(s); i++ {
		if s[i] == sub[0] && strings.EqualFold(s[i:i+len(sub)], sub) {
			return i
		}
	}
	return -1
}
