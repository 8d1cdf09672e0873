package tui

import (
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/hermes-go/hermes/internal/slash"
)

// pickMsg opens the picker (slash.Picker): a list to choose one item
// from, the index chosen (or -1) sent on reply.
type pickMsg struct {
	id    int64
	title string
	items []slash.PickItem
	reply chan int
}

// unpickMsg closes the picker whose asker gave up.
type unpickMsg struct{ id int64 }

// pickerRows is how many items the picker shows at once.
const pickerRows = 10

// picker is the list on screen: arrow keys move, Enter picks, Esc
// cancels, typing filters (every word typed must appear in the item).
type picker struct {
	pickMsg
	filter   string
	shown    []int // indexes of the items the filter keeps
	selected int   // in shown
	offset   int   // the first row of shown on screen
}

func (m *Model) openPicker(msg pickMsg) {
	if m.picker != nil {
		m.closePicker(-1)
	}
	p := &picker{pickMsg: msg}
	p.refilter()
	m.picker = p
	m.scroll = 0
	m.dirty = true
}

func (p *picker) refilter() {
	words := strings.Fields(strings.ToLower(p.filter))
	p.shown = p.shown[:0]
	for i, it := range p.items {
		hay := strings.ToLower(it.Title + " " + it.Detail)
		keep := true
		for _, w := range words {
			if !strings.Contains(hay, w) {
				keep = false
				break
			}
		}
		if keep {
			p.shown = append(p.shown, i)
		}
	}
	p.selected, p.offset = 0, 0
}

// closePicker answers the picker's asker with choice (-1: none).
func (m *Model) closePicker(choice int) {
	p := m.picker
	m.picker = nil
	p.reply <- choice
	m.dirty = true
}

// pickerKey handles a key while the picker is open.
func (m *Model) pickerKey(msg tea.KeyPressMsg) {
	p := m.picker
	m.dirty = true
	switch msg.String() {
	case "esc", "ctrl+c":
		m.closePicker(-1)
		return
	case "enter":
		if len(p.shown) > 0 {
			m.closePicker(p.shown[p.selected])
		}
		return
	case "up", "ctrl+p":
		p.selected = max(0, p.selected-1)
	case "down", "ctrl+n":
		p.selected = min(len(p.shown)-1, p.selected+1)
	case "pgup":
		p.selected = max(0, p.selected-pickerRows)
	case "pgdown":
		p.selected = min(len(p.shown)-1, p.selected+pickerRows)
	case "backspace":
		if r := []rune(p.filter); len(r) > 0 {
			p.filter = string(r[:len(r)-1])
			p.refilter()
		}
	default:
		if msg.Text == "" {
			return
		}
		p.filter += msg.Text
		p.refilter()
	}
	p.selected = max(0, p.selected)
	if p.selected < p.offset {
		p.offset = p.selected
	}
	if p.selected >= p.offset+pickerRows {
		p.offset = p.selected - pickerRows + 1
	}
}

// pickerView draws the picker.
func (m *Model) pickerView(width int) string {
	p, t := m.picker, m.theme
	inner := max(20, width-4)
	var b strings.Builder
	b.WriteString(t.prompt.Render(p.title))
	if p.filter != "" {
		b.WriteString(t.dim.Render("  filter: ") + p.filter)
	}
	b.WriteString(t.dim.Render(fmt.Sprintf("  (%d of %d)", len(p.shown), len(p.items))) + "\n")
	if len(p.shown) == 0 {
		b.WriteString(t.dim.Render("  nothing matches the filter") + "\n")
	}
	end := min(len(p.shown), p.offset+pickerRows)
	for row := p.offset; row < end; row++ {
		it := p.items[p.shown[row]]
		title := clip(it.Title, max(10, inner/2))
		detail := clip(it.Detail, max(0, inner-len([]rune(title))-4))
		if row == p.selected {
			b.WriteString(t.modalHi.Render("› "+title) + "  " + t.dim.Render(detail) + "\n")
		} else {
			b.WriteString("  " + title + "  " + t.dim.Render(detail) + "\n")
		}
	}
	b.WriteString(t.dim.Render("↑/↓ move · Enter picks · type to filter · Esc cancels"))
	return t.modal.Width(width).Render(b.String())
}
