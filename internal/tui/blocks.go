package tui

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/hermes-go/hermes/llm"
)

// blockKind is what a block of the conversation shows.
type blockKind int

const (
	userBlock blockKind = iota
	answerBlock
	reasoningBlock
	toolBlock
	infoBlock
	warnBlock
	errorBlock
	noteBlock // a separator line: a resumed session, a new session
)

// block is one piece of the conversation on screen. Its lines are
// rendered once per width and kept.
type block struct {
	kind blockKind
	text string
	tool *toolState

	// live is set while an answer or reasoning streams in.
	live *stream

	width int
	lines []string
}

// toolState is a tool call shown on one line (more in verbose mode).
type toolState struct {
	id, name, args string
	result         string
	done, failed   bool
	duration       time.Duration
}

// invalidate drops the rendered lines (the text, state or width changed).
func (b *block) invalidate() { b.lines, b.width = nil, 0 }

// render returns the block's lines at width.
func (m *Model) render(b *block, width int) []string {
	if b.live != nil {
		if b.kind == reasoningBlock {
			return m.reasoningLines(b.live.String(), width)
		}
		return b.live.lines()
	}
	if b.lines != nil && b.width == width {
		return b.lines
	}
	t := m.theme
	var lines []string
	switch b.kind {
	case userBlock:
		for i, l := range wrap(b.text, width-2) {
			mark := "  "
			if i == 0 {
				mark = t.userMark.Render("›") + " "
			}
			lines = append(lines, mark+t.user.Render(l))
		}
	case answerBlock:
		lines = m.md.render(b.text, width)
	case reasoningBlock:
		lines = m.reasoningLines(b.text, width)
	case toolBlock:
		lines = m.toolLines(b.tool, width)
	case infoBlock:
		for _, l := range wrap(b.text, width) {
			lines = append(lines, t.info.Render(l))
		}
	case warnBlock:
		for i, l := range wrap(b.text, width-2) {
			lines = append(lines, t.warning.Render(prefix(i, "⚠ ")+l))
		}
	case errorBlock:
		for i, l := range wrap(b.text, width-2) {
			lines = append(lines, t.err.Render(prefix(i, "✗ ")+l))
		}
	case noteBlock:
		label := " " + b.text + " "
		rule := max(0, width-len([]rune(label))-2)
		lines = []string{t.dim.Render("──" + label + strings.Repeat("─", rule))}
	}
	b.lines, b.width = lines, width
	return lines
}

func prefix(i int, p string) string {
	if i == 0 {
		return p
	}
	return strings.Repeat(" ", len([]rune(p)))
}

// reasoningLines shows reasoning dimmed; collapsed, only its first line
// and its size.
func (m *Model) reasoningLines(text string, width int) []string {
	t := m.theme
	text = strings.TrimSpace(text)
	if text == "" {
		return nil
	}
	if !m.showReasoning {
		first, _, _ := strings.Cut(text, "\n")
		words := len(strings.Fields(text))
		return []string{t.reasoning.Render(clip("▸ thinking: "+first, width-24) + fmt.Sprintf(" (%d words, ctrl+o shows)", words))}
	}
	var out []string
	for i, l := range wrap(text, width-2) {
		out = append(out, t.reasoning.Render(prefix(i, "▾ ")+l))
	}
	return out
}

// toolLines shows a call: its mark, name, argument preview, duration and
// a one-line preview of its result; verbose adds more of both.
func (m *Model) toolLines(s *toolState, width int) []string {
	t := m.theme
	mark, style := m.spinnerFrame(), t.toolRun
	switch {
	case s.done && s.failed:
		mark, style = "✗", t.toolFail
	case s.done:
		mark, style = "✓", t.toolOK
	}
	head := style.Render(mark) + " " + s.name
	if a := argPreview(s.name, s.args); a != "" {
		head += " " + t.dim.Render(clip(a, max(10, width-len(s.name)-20)))
	}
	if s.done {
		if s.duration > 0 {
			head += t.dim.Render(" · " + s.duration.Round(time.Millisecond).String())
		}
		if r := oneLine(s.result); r != "" && m.toolProgress != "verbose" {
			head += t.dim.Render(" · " + clip(r, max(10, width/3)))
		}
	}
	lines := []string{head}
	if m.toolProgress == "verbose" {
		if s.args != "" {
			for _, l := range firstLines(s.args, 4, width-4) {
				lines = append(lines, t.dim.Render("    "+l))
			}
		}
		if s.done {
			for _, l := range firstLines(s.result, 8, width-4) {
				lines = append(lines, t.dim.Render("  │ "+l))
			}
		}
	}
	return lines
}

// argPreview is the one thing worth showing of a call's arguments: the
// command, the path, or the arguments on one line.
func argPreview(name, args string) string {
	var m map[string]any
	if json.Unmarshal([]byte(args), &m) == nil {
		for _, k := range []string{"command", "path", "query", "pattern", "url", "question", "goal"} {
			if v, ok := m[k].(string); ok && v != "" {
				return oneLine(v)
			}
		}
	}
	if args == "{}" {
		return ""
	}
	return oneLine(args)
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// clip cuts s to n cells (runes), marking the cut.
func clip(s string, n int) string {
	r := []rune(s)
	if n < 2 || len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

func firstLines(s string, n, width int) []string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	more := len(lines) - n
	if more > 0 {
		lines = lines[:n]
	}
	for i := range lines {
		lines[i] = clip(lines[i], width)
	}
	if more > 0 {
		lines = append(lines, fmt.Sprintf("… %d more lines", more))
	}
	return lines
}

// recapBlocks turns a stored conversation into blocks: user messages,
// answers, reasoning and tool calls with their results.
func recapBlocks(history []llm.Message) []*block {
	var out []*block
	calls := map[string]*toolState{}
	for _, msg := range history {
		switch msg.Role {
		case llm.RoleUser:
			out = append(out, &block{kind: userBlock, text: msg.Content})
		case llm.RoleAssistant:
			if r := strings.TrimSpace(msg.Reasoning); r != "" {
				out = append(out, &block{kind: reasoningBlock, text: r})
			}
			if c := strings.TrimSpace(msg.Content); c != "" {
				out = append(out, &block{kind: answerBlock, text: c})
			}
			for _, c := range msg.ToolCalls {
				s := &toolState{id: c.ID, name: c.Name, args: c.Arguments}
				calls[c.ID] = s
				out = append(out, &block{kind: toolBlock, tool: s})
			}
		case llm.RoleTool:
			if s := calls[msg.ToolCallID]; s != nil {
				s.done, s.result = true, msg.Content
			}
		}
	}
	return out
}
