package cli

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
)

// option is one answer of a choice: name is what it picks (and what may
// be typed for it), detail says more.
type option struct {
	name, detail string
}

// errAborted is the user leaving a question (Esc, Ctrl+C, the end of
// the input): nothing is written. (A type, so that start-up allocates
// nothing for it.)
var errAborted error = abortedError{}

type abortedError struct{}

func (abortedError) Error() string { return "stopped before the end; nothing was written" }

// prompter puts the questions of setup and model: in a terminal through
// Bubble Tea (teaPrompter), else as lines on stderr answered on stdin
// (linePrompter).
type prompter interface {
	// note says something between questions.
	note(text string)
	// choose returns the index of the option picked; def is preselected.
	choose(question string, options []option, def int) (int, error)
	// input reads a line; an empty answer is def.
	input(question, def string) (string, error)
	// secret reads a line that is not shown.
	secret(question string) (string, error)
	// toggle lets each option be turned on or off; on is the start.
	toggle(question string, options []option, on []bool) ([]bool, error)
}

// newPrompter is the prompter for e: Bubble Tea on a terminal, lines
// otherwise.
func newPrompter(e *env) prompter {
	if f, ok := e.stdin.(*os.File); ok && isTerminal(f) {
		return &teaPrompter{in: f, out: e.stderr}
	}
	return &linePrompter{in: bufio.NewReader(e.stdin), out: e.stderr}
}

// linePrompter asks on a line each, for a pipe or a script: a choice is
// answered with its number or its name.
type linePrompter struct {
	in  *bufio.Reader
	out io.Writer
}

func (p *linePrompter) note(text string) { fmt.Fprintln(p.out, text) }

func (p *linePrompter) readLine(question string) (string, error) {
	fmt.Fprintf(p.out, "%s: ", question)
	line, err := p.in.ReadString('\n')
	fmt.Fprintln(p.out)
	if err != nil && (err != io.EOF || line == "") {
		return "", errAborted
	}
	return strings.TrimSpace(line), nil
}

func (p *linePrompter) choose(question string, options []option, def int) (int, error) {
	fmt.Fprintln(p.out, question)
	for i, o := range options {
		fmt.Fprintf(p.out, "  %d) %s", i+1, o.name)
		if o.detail != "" {
			fmt.Fprintf(p.out, "  %s", o.detail)
		}
		fmt.Fprintln(p.out)
	}
	for range attempts {
		q := "number or name"
		if def >= 0 && def < len(options) {
			q += fmt.Sprintf(" [%s]", options[def].name)
		}
		line, err := p.readLine(q)
		if err != nil {
			return 0, err
		}
		if line == "" && def >= 0 && def < len(options) {
			return def, nil
		}
		if i, ok := pickOption(options, line); ok {
			return i, nil
		}
		fmt.Fprintf(p.out, "%q is none of them; again.\n", line)
	}
	return 0, fmt.Errorf("no answer to %q", question)
}

// pickOption finds the option an answer names: its number, or its name.
func pickOption(options []option, answer string) (int, bool) {
	if n, err := strconv.Atoi(answer); err == nil && n >= 1 && n <= len(options) {
		return n - 1, true
	}
	for i, o := range options {
		if strings.EqualFold(o.name, answer) {
			return i, true
		}
	}
	return 0, false
}

func (p *linePrompter) input(question, def string) (string, error) {
	q := question
	if def != "" {
		q += fmt.Sprintf(" [%s]", def)
	}
	line, err := p.readLine(q)
	if err != nil {
		return "", err
	}
	if line == "" {
		return def, nil
	}
	return line, nil
}

func (p *linePrompter) secret(question string) (string, error) {
	return p.readLine(question)
}

func (p *linePrompter) toggle(question string, options []option, on []bool) ([]bool, error) {
	out := append([]bool{}, on...)
	fmt.Fprintln(p.out, question)
	for i, o := range options {
		mark := " "
		if on[i] {
			mark = "x"
		}
		fmt.Fprintf(p.out, "  [%s] %d) %s  %s\n", mark, i+1, o.name, o.detail)
	}
	line, err := p.readLine("names or numbers to turn on or off, separated by spaces (Enter: as they are)")
	if err != nil {
		return nil, err
	}
	for _, w := range strings.FieldsFunc(line, func(r rune) bool { return r == ' ' || r == ',' }) {
		i, ok := pickOption(options, w)
		if !ok {
			return nil, fmt.Errorf("%q is none of them", w)
		}
		out[i] = !out[i]
	}
	return out, nil
}
