package tui

import (
	"strings"

	"charm.land/glamour/v2"
	"charm.land/glamour/v2/styles"
	"github.com/charmbracelet/x/ansi"
)

// markdown renders markdown at a width. The glamour renderer is built on
// first use (start-up stays fast) and again when the width changes.
type markdown struct {
	width int
	r     *glamour.TermRenderer
}

// render returns the rendered lines of text, without the blank lines
// glamour puts around a document. Text glamour cannot render is shown
// as it is, wrapped.
func (m *markdown) render(text string, width int) []string {
	width = max(width, 10)
	if m.r == nil || m.width != width {
		style := styles.DarkStyleConfig
		zero := uint(0)
		style.Document.Margin = &zero
		r, err := glamour.NewTermRenderer(glamour.WithStyles(style), glamour.WithWordWrap(width))
		if err != nil {
			return wrap(text, width)
		}
		m.r, m.width = r, width
	}
	out, err := m.r.Render(text)
	if err != nil {
		return wrap(text, width)
	}
	return trimBlank(strings.Split(out, "\n"))
}

// wrap breaks plain text into lines of at most width cells.
func wrap(text string, width int) []string {
	width = max(width, 10)
	var out []string
	for _, l := range strings.Split(strings.TrimRight(text, "\n"), "\n") {
		out = append(out, strings.Split(ansi.Wrap(l, width, " "), "\n")...)
	}
	return out
}

// trimBlank drops blank lines at both ends and trailing spaces on every
// line (glamour pads lines to the width).
func trimBlank(lines []string) []string {
	for i := range lines {
		lines[i] = strings.TrimRight(lines[i], " ")
	}
	blank := func(s string) bool { return strings.TrimSpace(ansi.Strip(s)) == "" }
	for len(lines) > 0 && blank(lines[0]) {
		lines = lines[1:]
	}
	for len(lines) > 0 && blank(lines[len(lines)-1]) {
		lines = lines[:len(lines)-1]
	}
	return lines
}
