package cli

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"

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

// formStyles are the forms' styles, built when a form is first drawn:
// nothing at start-up.
type formStyles struct {
	question, cursor, dim lipgloss.Style
	done                  string
}

var (
	formStyleOnce sync.Once
	formStyleSet  formStyles
)

func formStyle() *formStyles {
	formStyleOnce.Do(func() {
		s := &formStyleSet
		s.question = lipgloss.NewStyle().Bold(true)
		s.cursor = lipgloss.NewStyle().Foreground(lipgloss.Color("6")).Bold(true)
		s.dim = lipgloss.NewStyle().Faint(true)
		s.done = lipgloss.NewStyle().Foreground(lipgloss.Color("2")).Render("✓")
	})
	return &formStyleSet
}

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
	m := &inputModel{question: question, def: def, secret: secret}
	if _, err := p.run(m); err != nil {
		return "", err
	}
	if m.aborted {
		return "", errAborted
	}
	v := strings.TrimSpace(string(m.value))
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
		fmt.Fprintf(&b, "%s %s %s\n", formStyle().done, formStyle().question.Render(m.question), m.options[m.picked].name)
		return tea.NewView(b.String())
	}
	if m.aborted {
		return tea.NewView(formStyle().question.Render(m.question) + " (stopped)\n")
	}
	fmt.Fprintf(&b, "%s %s\n", formStyle().question.Render(m.question), formStyle().dim.Render("↑/↓ move, type to filter, Enter picks"))
	if m.filter != "" {
		fmt.Fprintf(&b, "  filter: %s\n", m.filter)
	}
	shown := m.shown()
	from := max(0, min(m.cursor-pageSize/2, len(shown)-pageSize))
	for j := from; j < len(shown) && j < from+pageSize; j++ {
		o := m.options[shown[j]]
		line := fmt.Sprintf("%2d) %s", shown[j]+1, o.name)
		if o.detail != "" {
			line += "  " + formStyle().dim.Render(o.detail)
		}
		if j == m.cursor {
			b.WriteString(formStyle().cursor.Render("> ") + line + "\n")
		} else {
			b.WriteString("  " + line + "\n")
		}
	}
	if len(shown) == 0 {
		b.WriteString("  (nothing matches)\n")
	} else if len(shown) > pageSize {
		fmt.Fprintf(&b, "  %s\n", formStyle().dim.Render(fmt.Sprintf("%d of %d", m.cursor+1, len(shown))))
	}
	return tea.NewView(b.String())
}

// inputModel reads one line, edited at its end (a key is pasted or
// typed, not edited in the middle); a secret one shows nothing of what is
// typed, not even its length. (bubbles' textinput would do more, for 86 KB
// more binary.)
type inputModel struct {
	question, def string
	secret        bool
	value         []rune
	done, aborted bool
}

func (m *inputModel) Init() tea.Cmd { return nil }

func (m *inputModel) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.PasteMsg:
		m.value = append(m.value, []rune(strings.NewReplacer("\r", "", "\n", "").Replace(msg.Content))...)
	case tea.KeyPressMsg:
		switch msg.String() {
		case "ctrl+c", "esc":
			m.aborted = true
			return m, tea.Quit
		case "enter":
			m.done = true
			return m, tea.Quit
		case "backspace", "ctrl+h":
			if len(m.value) > 0 {
				m.value = m.value[:len(m.value)-1]
			}
		case "ctrl+u":
			m.value = nil
		case "ctrl+w":
			v := strings.TrimRight(string(m.value), " ")
			m.value = []rune(v[:strings.LastIndex(v, " ")+1])
		default:
			if msg.Text != "" {
				m.value = append(m.value, []rune(msg.Text)...)
			}
		}
	}
	return m, nil
}

func (m *inputModel) View() tea.View {
	switch {
	case m.done:
		v := strings.TrimSpace(string(m.value))
		switch {
		case m.secret && v != "":
			v = "(entered, not shown)"
		case v == "" && m.def != "":
			v = m.def
		case v == "":
			v = "(none)"
		}
		return tea.NewView(fmt.Sprintf("%s %s %s\n", formStyle().done, formStyle().question.Render(m.question), v))
	case m.aborted:
		return tea.NewView(formStyle().question.Render(m.question) + " (stopped)\n")
	}
	shown := string(m.value)
	switch {
	case m.secret:
		shown = formStyle().dim.Render("(typing is not shown)")
	case shown == "" && m.def != "":
		shown = formStyle().dim.Render(m.def + "  (Enter keeps it)")
	}
	return tea.NewView(formStyle().question.Render(m.question) + "\n" + formStyle().cursor.Render("> ") + shown + "\n")
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
		fmt.Fprintf(&b, "%s %s %s\n", formStyle().done, formStyle().question.Render(m.question), strings.Join(on, ", "))
		return tea.NewView(b.String())
	}
	fmt.Fprintf(&b, "%s %s\n", formStyle().question.Render(m.question), formStyle().dim.Render("↑/↓ move, Space turns on/off, Enter is done"))
	for i, o := range m.options {
		mark := "[ ]"
		if m.on[i] {
			mark = "[x]"
		}
		cur := "  "
		if i == m.cursor {
			cur = formStyle().cursor.Render("> ")
		}
		fmt.Fprintf(&b, "%s%s %s  %s\n", cur, mark, o.name, formStyle().dim.Render(o.detail))
	}
	return tea.NewView(b.String())
}
