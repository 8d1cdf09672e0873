package cli

import (
	"fmt"
	"io"
	"os"
	"strings"

	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
)

// teaPrompter puts each question as a small Bubble Tea program drawn
// in place (no alternate screen), so the answers stay on the terminal
// one under the other, as a form filled in.
type teaPrompter struct {
	in  *os.File
	out io.Writer
}

var (
	questionStyle = lipgloss.NewStyle().Bold(true)
	cursorStyle   = lipgloss.NewStyle().Foreground(lipgloss.Color("6")).Bold(true)
	dimStyle      = lipgloss.NewStyle().Faint(true)
	doneMark      = lipgloss.NewStyle().Foreground(lipgloss.Color("2")).Render("✓")
)

// run runs one question's program to its end.
func (p *teaPrompter) run(m tea.Model) (tea.Model, error) {
	return tea.NewProgram(m, tea.WithInput(p.in), tea.WithOutput(p.out)).Run()
}

func (p *teaPrompter) note(text string) { fmt.Fprintln(p.out, text) }

func (p *teaPrompter) choose(question string, options []option, def int) (int, error) {
	m := &choiceModel{question: question, options: options, cursor: max(def, 0)}
	if _, err := p.run(m); err != nil {
		return 0, err
	}
	if m.aborted {
		return 0, errAborted
	}
	return m.picked, nil
}

func (p *teaPrompter) input(question, def string) (string, error) {
	return p.line(question, def, false)
}

func (p *teaPrompter) secret(question string) (string, error) {
	return p.line(question, "", true)
}

func (p *teaPrompter) line(question, def string, secret bool) (string, error) {
	ti := textinput.New()
	ti.Prompt = "> "
	ti.SetWidth(70)
	if secret {
		ti.EchoMode = textinput.EchoNone // not even its length shows
		ti.Placeholder = "(typing is not shown)"
	} else {
		ti.Placeholder = def
	}
	ti.Focus()
	m := &inputModel{question: question, def: def, secret: secret, ti: ti}
	if _, err := p.run(m); err != nil {
		return "", err
	}
	if m.aborted {
		return "", errAborted
	}
	v := strings.TrimSpace(m.ti.Value())
	if v == "" {
		v = def
	}
	return v, nil
}

func (p *teaPrompter) toggle(question string, options []option, on []bool) ([]bool, error) {
	m := &toggleModel{question: question, options: options, on: append([]bool{}, on...)}
	if _, err := p.run(m); err != nil {
		return nil, err
	}
	if m.aborted {
		return nil, errAborted
	}
	return m.on, nil
}

// choiceModel picks one option: arrows move, typing filters, Enter picks.
type choiceModel struct {
	question string
	options  []option
	cursor   int // index into the filtered list
	filter   string
	picked   int
	done     bool
	aborted  bool
}

// shown is the options the filter lets through, as indexes.
func (m *choiceModel) shown() []int {
	var out []int
	f := strings.ToLower(m.filter)
	for i, o := range m.options {
		if f == "" || strings.Contains(strings.ToLower(o.name+" "+o.detail), f) {
			out = append(out, i)
		}
	}
	return out
}

func (m *choiceModel) Init() tea.Cmd { return nil }

func (m *choiceModel) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	k, ok := msg.(tea.KeyPressMsg)
	if !ok {
		return m, nil
	}
	shown := m.shown()
	switch k.String() {
	case "ctrl+c", "esc":
		m.aborted = true
		return m, tea.Quit
	case "up", "ctrl+p":
		m.cursor = max(m.cursor-1, 0)
	case "down", "ctrl+n", "tab":
		m.cursor = min(m.cursor+1, max(len(shown)-1, 0))
	case "enter":
		if len(shown) > 0 {
			m.picked, m.done = shown[min(m.cursor, len(shown)-1)], true
			return m, tea.Quit
		}
	case "backspace":
		if m.filter != "" {
			m.filter = m.filter[:len(m.filter)-1]
			m.cursor = 0
		}
	default:
		if k.Text != "" {
			m.filter += k.Text
			m.cursor = 0
		}
	}
	return m, nil
}

// pageSize is how many options show at once; the list scrolls.
const pageSize = 12

func (m *choiceModel) View() tea.View {
	var b strings.Builder
	if m.done {
		fmt.Fprintf(&b, "%s %s %s\n", doneMark, questionStyle.Render(m.question), m.options[m.picked].name)
		return tea.NewView(b.String())
	}
	if m.aborted {
		return tea.NewView(questionStyle.Render(m.question) + " (stopped)\n")
	}
	fmt.Fprintf(&b, "%s %s\n", questionStyle.Render(m.question), dimStyle.Render("↑/↓ move, type to filter, Enter picks"))
	if m.filter != "" {
		fmt.Fprintf(&b, "  filter: %s\n", m.filter)
	}
	shown := m.shown()
	from := max(0, min(m.cursor-pageSize/2, len(shown)-pageSize))
	for j := from; j < len(shown) && j < from+pageSize; j++ {
		o := m.options[shown[j]]
		line := fmt.Sprintf("%2d) %s", shown[j]+1, o.name)
		if o.detail != "" {
			line += "  " + dimStyle.Render(o.detail)
		}
		if j == m.cursor {
			b.WriteString(cursorStyle.Render("> ") + line + "\n")
		} else {
			b.WriteString("  " + line + "\n")
		}
	}
	if len(shown) == 0 {
		b.WriteString("  (nothing matches)\n")
	} else if len(shown) > pageSize {
		fmt.Fprintf(&b, "  %s\n", dimStyle.Render(fmt.Sprintf("%d of %d", m.cursor+1, len(shown))))
	}
	return tea.NewView(b.String())
}

// inputModel reads one line; a secret one shows nothing of what is typed.
type inputModel struct {
	question, def string
	secret        bool
	ti            textinput.Model
	done, aborted bool
}

func (m *inputModel) Init() tea.Cmd { return nil }

func (m *inputModel) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	if k, ok := msg.(tea.KeyPressMsg); ok {
		switch k.String() {
		case "ctrl+c", "esc":
			m.aborted = true
			return m, tea.Quit
		case "enter":
			m.done = true
			return m, tea.Quit
		}
	}
	var cmd tea.Cmd
	m.ti, cmd = m.ti.Update(msg)
	return m, cmd
}

func (m *inputModel) View() tea.View {
	switch {
	case m.done:
		v := strings.TrimSpace(m.ti.Value())
		switch {
		case m.secret && v != "":
			v = "(entered, not shown)"
		case v == "" && m.def != "":
			v = m.def
		case v == "":
			v = "(none)"
		}
		return tea.NewView(fmt.Sprintf("%s %s %s\n", doneMark, questionStyle.Render(m.question), v))
	case m.aborted:
		return tea.NewView(questionStyle.Render(m.question) + " (stopped)\n")
	}
	return tea.NewView(questionStyle.Render(m.question) + "\n" + m.ti.View() + "\n")
}

// toggleModel turns options on and off: arrows move, Space turns, Enter
// is done.
type toggleModel struct {
	question      string
	options       []option
	on            []bool
	cursor        int
	done, aborted bool
}

func (m *toggleModel) Init() tea.Cmd { return nil }

func (m *toggleModel) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	k, ok := msg.(tea.KeyPressMsg)
	if !ok {
		return m, nil
	}
	switch k.String() {
	case "ctrl+c", "esc":
		m.aborted = true
		return m, tea.Quit
	case "up", "k":
		m.cursor = max(m.cursor-1, 0)
	case "down", "j", "tab":
		m.cursor = min(m.cursor+1, len(m.options)-1)
	case "space", " ", "x":
		m.on[m.cursor] = !m.on[m.cursor]
	case "enter":
		m.done = true
		return m, tea.Quit
	}
	return m, nil
}

func (m *toggleModel) View() tea.View {
	var b strings.Builder
	if m.done {
		var on []string
		for i, o := range m.options {
			if m.on[i] {
				on = append(on, o.name)
			}
		}
		fmt.Fprintf(&b, "%s %s %s\n", doneMark, questionStyle.Render(m.question), strings.Join(on, ", "))
		return tea.NewView(b.String())
	}
	fmt.Fprintf(&b, "%s %s\n", questionStyle.Render(m.question), dimStyle.Render("↑/↓ move, Space turns on/off, Enter is done"))
	for i, o := range m.options {
		mark := "[ ]"
		if m.on[i] {
			mark = "[x]"
		}
		cur := "  "
		if i == m.cursor {
			cur = cursorStyle.Render("> ")
		}
		fmt.Fprintf(&b, "%s%s %s  %s\n", cur, mark, o.name, dimStyle.Render(o.detail))
	}
	return tea.NewView(b.String())
}
