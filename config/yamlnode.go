package config

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v4"
)

// entry is one key: value pair of a mapping, as parsed.
type entry struct{ key, value *yaml.Node }

// parseDocument parses b into its document node; nil when b holds no
// document (empty, or comments only).
func parseDocument(b []byte) (*yaml.Node, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(b, &doc); err != nil {
		return nil, err
	}
	if doc.Kind != yaml.DocumentNode || len(doc.Content) == 0 {
		return nil, nil
	}
	return &doc, nil
}

// entries is a mapping's key: value pairs; nil for any other node (an
// alias is not followed).
func entries(n *yaml.Node) []entry {
	if n == nil || n.Kind != yaml.MappingNode {
		return nil
	}
	out := make([]entry, 0, len(n.Content)/2)
	for i := 0; i+1 < len(n.Content); i += 2 {
		out = append(out, entry{n.Content[i], n.Content[i+1]})
	}
	return out
}

func isNull(n *yaml.Node) bool { return n.Kind == yaml.ScalarNode && n.Tag == "!!null" }

func isString(n *yaml.Node) bool { return n.Kind == yaml.ScalarNode && n.Tag == "!!str" }

func isFlow(n *yaml.Node) bool { return n.Style&yaml.FlowStyle != 0 }

// errLayout is a layout the text editor does not read.
var errLayout = errors.New("a layout that cannot be edited safely (edit it by hand)")

// colon returns the line and column (1-based, in characters) of the ':'
// after e's key: the parser reports where the key starts, not where its
// colon is.
func (t *text) colon(e entry) (line, col int, err error) {
	k := e.key
	if k.Line < 1 || k.Line > len(t.lines) || k.Kind != yaml.ScalarNode {
		return 0, 0, errLayout
	}
	r := []rune(t.lines[k.Line-1])
	i := k.Column - 1
	if i < 0 || i >= len(r) {
		return 0, 0, errLayout
	}
	switch {
	case k.Style&(yaml.SingleQuotedStyle|yaml.DoubleQuotedStyle) != 0:
		i = closingQuote(r, i) + 1
	case k.Style == 0 && !strings.Contains(k.Value, "\n"):
		i += len([]rune(k.Value))
	default:
		return 0, 0, errLayout
	}
	for i < len(r) && (r[i] == ' ' || r[i] == '\t') {
		i++
	}
	if i >= len(r) || r[i] != ':' {
		return 0, 0, errLayout
	}
	return k.Line, i + 1, nil
}

// closingQuote returns the index of the quote that closes the quoted
// scalar opening at r[i] (” is a quote inside single quotes, \" inside
// double quotes), or len(r) when the line does not close it.
func closingQuote(r []rune, i int) int {
	q := r[i]
	for i++; i < len(r); i++ {
		switch {
		case q == '"' && r[i] == '\\':
			i++
		case r[i] != q:
		case q == '\'' && i+1 < len(r) && r[i+1] == '\'':
			i++
		default:
			return i
		}
	}
	return len(r)
}

// itemLines returns the lines (1-based) a block list's item spans: from
// its dash to its last line of content.
func (t *text) itemLines(item *yaml.Node) (from, to int, err error) {
	if item.Line < 1 || item.Line > len(t.lines) {
		return 0, 0, errLayout
	}
	r := []rune(t.lines[item.Line-1])
	dash := item.Column - 2
	for dash >= 0 && dash < len(r) && r[dash] == ' ' {
		dash--
	}
	if dash < 0 || dash >= len(r) || r[dash] != '-' || strings.TrimSpace(string(r[:dash])) != "" {
		return 0, 0, errLayout // the item is not on its dash's line
	}
	return item.Line, blockEnd(t, item.Line, dash), nil
}

// flowItems returns the source text of each item of a one-line flow list
// ([a, "b"]) and the column (0-based, in characters) of its closing ].
func (t *text) flowItems(seq *yaml.Node) (items []string, closing int, err error) {
	if seq.Line < 1 || seq.Line > len(t.lines) {
		return nil, 0, errLayout
	}
	r := []rune(t.lines[seq.Line-1])
	open := seq.Column - 1
	if open < 0 || open >= len(r) || r[open] != '[' {
		return nil, 0, errLayout
	}
	depth, start := 0, open+1
	for i := open + 1; i < len(r); i++ {
		switch r[i] {
		case '\'', '"':
			i = closingQuote(r, i)
		case '[', '{':
			depth++
		case '}':
			depth--
		case ']':
			if depth > 0 {
				depth--
				continue
			}
			if s := strings.TrimSpace(string(r[start:i])); s != "" {
				items = append(items, s)
			}
			return items, i, nil
		case ',':
			if depth == 0 {
				items = append(items, strings.TrimSpace(string(r[start:i])))
				start = i + 1
			}
		case '#':
			if r[i-1] == ' ' || r[i-1] == '\t' {
				return nil, 0, errLayout // a comment inside the brackets
			}
		}
	}
	return nil, 0, errors.New("a list in brackets over several lines cannot be edited safely")
}

// formatYAMLError is a parse or decode error with the lines of src it
// names, so that the user sees where the file is wrong.
func formatYAMLError(err error, src []byte) string {
	lines := strings.Split(strings.ReplaceAll(string(src), "\r\n", "\n"), "\n")
	show := func(b *strings.Builder, line, col int) {
		if line < 1 {
			return
		}
		for n := max(line-1, 1); n <= line && n <= len(lines); n++ {
			mark := "  "
			if n == line {
				mark = "> "
			}
			fmt.Fprintf(b, "%s%3d | %s\n", mark, n, lines[n-1])
		}
		if col > 0 && line <= len(lines) {
			fmt.Fprintf(b, "%s^\n", strings.Repeat(" ", 8+min(col-1, len([]rune(lines[line-1])))))
		}
	}
	var b strings.Builder
	var pe *yaml.ParserError
	var te *yaml.TypeError
	switch {
	case errors.As(err, &pe):
		line := parseErrorLine(lines)
		if line < 1 {
			return pe.Message
		}
		fmt.Fprintf(&b, "[%d] %s\n", line, pe.Message)
		show(&b, line, 0)
	case errors.As(err, &te):
		for _, e := range te.Errors {
			fmt.Fprintf(&b, "[%d:%d] %s\n", e.Line, e.Column, e.Err)
			show(&b, e.Line, e.Column)
		}
	default:
		return err.Error()
	}
	return strings.TrimRight(b.String(), "\n")
}

// parseErrorLine is the line of a text YAML cannot parse where it
// becomes unparsable for good: the first line of the longest unparsable
// tail. (The parser's own line numbers mix 0- and 1-based positions.)
func parseErrorLine(lines []string) int {
	for k := len(lines); k >= 1; k-- {
		var n yaml.Node
		if yaml.Unmarshal([]byte(strings.Join(lines[:k-1], "\n")), &n) == nil {
			return k
		}
	}
	return 0
}

// quote writes s as a YAML scalar, quoted only when it must be: plain
// when YAML reads the plain text back as s, else double-quoted (Go's
// escapes are YAML's).
func quote(s string) string {
	if b, err := yaml.Marshal(s); err == nil && string(b) == s+"\n" {
		return s
	}
	return strconv.Quote(s)
}
