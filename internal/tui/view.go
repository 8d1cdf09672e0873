package tui

import (
	"context"
	"fmt"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/hermes-go/hermes/app"
)

var spinnerFrames = []string{"⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"}

func (m *Model) spinnerFrame() string {
	n := int(m.now().Sub(m.started) / (100 * time.Millisecond))
	return spinnerFrames[max(n, 0)%len(spinnerFrames)]
}

// contentWidth is the width the conversation is rendered at.
func (m *Model) contentWidth() int { return max(20, m.width-1) }

// View draws the screen: the conversation, what runs, the queue, a
// modal, the input, the status line.
func (m *Model) View() tea.View {
	bottom := m.bottom()
	h := max(1, m.height-len(bottom))
	conv := m.conversation(h)
	lines := make([]string, 0, m.height)
	lines = append(lines, conv...)
	for len(lines) < h {
		lines = append(lines, "")
	}
	inputAt := -1
	for _, l := range bottom {
		if l == inputMarker {
			inputAt = len(lines)
			lines = append(lines, strings.Split(m.input.View(), "\n")...)
			continue
		}
		lines = append(lines, l)
	}
	v := tea.NewView(strings.Join(lines, "\n"))
	v.AltScreen = true
	v.MouseMode = tea.MouseModeCellMotion
	v.WindowTitle = "hermes"
	if inputAt >= 0 && m.modal == nil || inputAt >= 0 && m.modal.clarify != nil {
		if c := m.input.Cursor(); c != nil {
			c.Y += inputAt
			v.Cursor = c
		}
	}
	return v
}

// inputMarker stands for the input's lines in bottom.
const inputMarker = "\x00input"

// bottom is everything below the conversation, the input as inputMarker
// (its lines are counted in convHeight).
func (m *Model) bottom() []string {
	t := m.theme
	var out []string
	if m.running != "" {
		what := "working"
		if m.live != nil {
			what = m.live.waiting
		}
		switch m.running {
		case "command":
			what = "running the command"
		case "starting":
			what = "starting"
		}
		line := t.toolRun.Render(m.spinnerFrame()) + " " + what + t.dim.Render(fmt.Sprintf(" · %s · Ctrl-C stops", m.now().Sub(m.started).Round(100*time.Millisecond)))
		out = append(out, line)
	}
	if n := len(m.queue); n > 0 {
		out = append(out, t.dim.Render(clip(fmt.Sprintf("queued (%d): %s", n, oneLine(m.queue[0])), m.width)))
	}
	if m.modal != nil {
		out = append(out, strings.Split(m.modalView(m.width), "\n")...)
	}
	if m.modal == nil || m.modal.clarify != nil {
		for range m.input.Height() {
			out = append(out, inputMarker)
		}
		out = compactMarkers(out)
	}
	if m.hint != "" {
		out = append(out, t.dim.Render(clip(m.hint, m.width)))
	}
	return append(out, m.statusLine())
}

// compactMarkers keeps one inputMarker: View expands it to the input's
// lines.
func compactMarkers(lines []string) []string {
	out := lines[:0]
	seen := false
	for _, l := range lines {
		if l == inputMarker {
			if seen {
				continue
			}
			seen = true
		}
		out = append(out, l)
	}
	return out
}

// convHeight is how many rows the conversation has.
func (m *Model) convHeight() int {
	n := 0
	for _, l := range m.bottom() {
		if l == inputMarker {
			n += m.input.Height()
		} else {
			n++
		}
	}
	return max(1, m.height-n)
}

// conversation returns the visible rows of the conversation, h of them
// at most, scrolled up by m.scroll.
func (m *Model) conversation(h int) []string {
	if m.dirty || m.frame == nil {
		m.frame = m.buildFrame()
		m.dirty = false
	}
	end := len(m.frame) - m.scroll
	if end < h {
		end = min(h, len(m.frame))
		m.scroll = max(0, len(m.frame)-end)
	}
	start := max(0, end-h)
	return m.frame[start:end]
}

// buildFrame lays out every block's lines.
func (m *Model) buildFrame() []string {
	w := m.contentWidth()
	var out []string
	var prev *block
	for _, b := range m.blocks {
		lines := m.render(b, w)
		if len(lines) == 0 {
			continue
		}
		if prev != nil && !(prev.kind == toolBlock && b.kind == toolBlock) {
			out = append(out, "")
		}
		out = append(out, lines...)
		prev = b
	}
	return out
}

// statusLine is the last row: model, provider, session title, tokens,
// context used, sandbox, and the marks of a fallback and of yolo.
func (m *Model) statusLine() string {
	t := m.theme
	if m.rt == nil {
		return t.status.Render(clip(" starting…"+strings.Repeat(" ", m.width), m.width))
	}
	s, c := m.status, m.conv()
	model, prov := c.Model()
	left := t.statusHi.Render(" "+model) + t.status.Render(" · "+prov)
	if next, nprov, ok := c.PendingModel(); ok && next != model {
		left += t.status.Render(" → " + next + " on " + nprov + " next")
	}
	if s.title != "" {
		left += t.status.Render(" · " + clip(s.title, 30))
	}
	right := fmt.Sprintf("↑%s ↓%s · ctx %.0f%% · %s ", compact(s.tokensIn), compact(s.tokensOut), s.contextPct, s.sandbox)
	if s.mcp != "" {
		right = s.mcp + " · " + right
	}
	var marks string
	if m.fallbackActive() {
		marks += t.fallback.Render(" FALLBACK ") + " "
	}
	if c.Yolo() {
		marks += t.fallback.Render(" YOLO ") + " "
	}
	pad := m.width - lipgloss.Width(left) - lipgloss.Width(right) - lipgloss.Width(marks)
	if pad < 1 {
		left = ansi.Truncate(left, max(0, lipgloss.Width(left)+pad-1), "…")
		pad = 1
	}
	return left + t.status.Render(strings.Repeat(" ", pad)) + marks + t.status.Render(right)
}

// fallbackActive reports whether calls go to a fallback provider: the
// active model is not the primary (and no switch to it is pending).
func (m *Model) fallbackActive() bool {
	if m.live != nil && m.live.fallback != "" {
		return true
	}
	c := m.conv()
	if _, _, pending := c.PendingModel(); pending {
		return false
	}
	model, prov := c.Model()
	ep := c.Endpoint()
	return model != ep.Model || prov != ep.Provider
}

func compact(n int64) string {
	switch {
	case n >= 1_000_000:
		return fmt.Sprintf("%.1fM", float64(n)/1e6)
	case n >= 1000:
		return fmt.Sprintf("%.1fk", float64(n)/1e3)
	}
	return fmt.Sprint(n)
}

func (m *Model) readStatus(withUsage bool) status { return readStatus(m.rt, m.conv(), withUsage) }

// readStatus reads what the status line shows of conversation c;
// withUsage also reads the session's totals and the context estimate (a
// database read and a prompt build: off the UI goroutine).
func readStatus(rt *app.Runtime, c *app.Conversation, withUsage bool) status {
	model, prov := c.Model()
	sb := c.SandboxStatus()
	s := status{model: model, provider: prov, sandbox: string(sb.Mode), mcp: rt.MCPStatusLine()}
	if sb.Level.String() != "full" && sb.Level.String() != "off" {
		s.sandbox += " (" + sb.Level.String() + ")"
	}
	// On a remote backend the local sandbox confines nothing the commands
	// do: the line names where they run instead.
	if be := c.Backend(); be != nil && be.Name() != "local" {
		s.sandbox = be.Name()
		if t, ok := be.(interface{ Target() string }); ok {
			s.sandbox += " " + t.Target()
		}
		s.sandbox += " (no local sandbox)"
	}
	if withUsage {
		if u, err := c.Usage(context.Background()); err == nil {
			s.title = u.Session.Title
			s.tokensIn, s.tokensOut = u.Session.Usage.InputTokens, u.Session.Usage.OutputTokens
			s.contextPct = u.Context.Percent()
		}
	}
	return s
}
