package tui

import (
	"fmt"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"
)

// exitWindow is how long a first Ctrl-C arms the exit.
const exitWindow = 3 * time.Second

// key handles a key press.
func (m *Model) key(msg tea.KeyPressMsg) tea.Cmd {
	k := msg.String()
	m.dirty = true
	if k != "ctrl+c" {
		m.ctrlC = time.Time{}
	}
	if m.modal != nil && m.modalKey(msg) {
		return nil
	}
	if m.picker != nil && m.modal == nil {
		m.pickerKey(msg)
		return nil
	}
	switch k {
	case "ctrl+c":
		return m.ctrlCKey()
	case "ctrl+d":
		if m.input.Value() == "" {
			return m.quit()
		}
	case "enter":
		text := m.expandPastes(m.input.Value())
		if strings.TrimSpace(text) == "" {
			return nil
		}
		m.input.Reset()
		m.hint = ""
		if err := m.history.add(text); err != nil {
			m.add(&block{kind: warnBlock, text: err.Error()})
		}
		return m.submit(text)
	case "tab":
		m.complete()
		return nil
	case "pgup":
		m.scrollBy(m.convHeight() - 2)
		return nil
	case "pgdown":
		m.scrollBy(-(m.convHeight() - 2))
		return nil
	case "ctrl+o":
		m.showReasoning = !m.showReasoning
		for _, b := range m.blocks {
			if b.kind == reasoningBlock {
				b.invalidate()
			}
		}
		return nil
	case "esc":
		if m.scroll > 0 {
			m.scroll = 0
			return nil
		}
	case "up":
		if m.input.Line() == 0 {
			if s, ok := m.history.prev(m.input.Value()); ok {
				m.input.SetValue(s)
				m.input.MoveToBegin()
			}
			return nil
		}
	case "down":
		if m.input.Line() == m.input.LineCount()-1 {
			if s, ok := m.history.next(); ok {
				m.input.SetValue(s)
			}
			return nil
		}
	}
	var cmd tea.Cmd
	m.input, cmd = m.input.Update(msg)
	m.hint = ""
	return cmd
}

// ctrlCKey stops what runs; with nothing running it clears the input,
// and a second press within exitWindow quits.
func (m *Model) ctrlCKey() tea.Cmd {
	now := m.now()
	if !m.ctrlC.IsZero() && now.Sub(m.ctrlC) < exitWindow {
		return m.quit()
	}
	m.ctrlC = now
	switch {
	case m.running == "turn" || m.running == "shell":
		m.interrupt()
		m.hint = "Stopping. Ctrl-C again quits."
	case m.input.Value() != "":
		m.input.Reset()
		m.hint = "Input cleared. Ctrl-C again quits."
	default:
		m.hint = "Ctrl-C again quits (or Ctrl-D)."
	}
	return nil
}

// quit ends the UI: a running turn is interrupted first.
func (m *Model) quit() tea.Cmd {
	m.quitting = true
	if m.running == "turn" || m.running == "shell" {
		m.conv().Interrupt()
	}
	if m.modal != nil {
		m.answerModal()
	}
	return tea.Quit
}

// paste puts pasted text in the input. A large paste is kept apart, as
// it is, behind a placeholder, so the input stays usable and nothing in
// it is cut or changed.
func (m *Model) paste(text string) {
	m.dirty = true
	text = strings.ReplaceAll(text, "\r\n", "\n")
	lines := strings.Count(text, "\n") + 1
	if len(text) < pasteThresholdChars && lines < pasteThresholdLines {
		m.input.InsertString(text)
		return
	}
	tag := fmt.Sprintf("[paste #%d: %d lines, %d chars]", len(m.pastes)+1, lines, len(text))
	m.pastes[tag] = text
	m.input.InsertString(tag)
}

// expandPastes puts the pasted texts back in place of their placeholders.
func (m *Model) expandPastes(s string) string {
	for tag, text := range m.pastes {
		s = strings.ReplaceAll(s, tag, text)
	}
	if strings.TrimSpace(s) != "" {
		m.pastes = map[string]string{}
	}
	return s
}

// complete completes a slash command's name (Tab).
func (m *Model) complete() {
	v := m.input.Value()
	cands := m.commands.Complete(v)
	switch len(cands) {
	case 0:
		if strings.HasPrefix(v, "/") && !strings.Contains(v, " ") {
			m.hint = "no command starts with " + v
		}
		return
	case 1:
		m.input.SetValue(cands[0])
		m.hint = ""
		return
	}
	common := cands[0]
	for _, c := range cands[1:] {
		for !strings.HasPrefix(c, common) {
			common = common[:len(common)-1]
		}
	}
	if len(common) > len(v) {
		m.input.SetValue(common)
	}
	m.hint = strings.Join(cands, " ")
}

func (m *Model) scrollBy(n int) {
	m.scroll = max(0, m.scroll+n)
	m.dirty = true
}
