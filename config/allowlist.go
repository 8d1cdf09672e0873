package config

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/goccy/go-yaml"
	"github.com/goccy/go-yaml/ast"
)

// AddToAllowlist appends a pattern key to command_allowlist in the config
// file (created when missing). The file is edited as text: its comments,
// layout and other keys stay exactly as they were. A key already listed
// is left alone.
func AddToAllowlist(path, key string) error {
	return editAllowlist(path, func(b []byte, list []string) ([]byte, []string, error) {
		if slices.Contains(list, key) {
			return nil, nil, nil
		}
		out, err := appendEntry(b, key)
		return out, append(slices.Clone(list), key), err
	})
}

// RemoveFromAllowlist removes every command_allowlist entry equal to
// entry from the config file, keeping its comments and layout. It
// reports whether the file held the entry.
func RemoveFromAllowlist(path, entry string) (bool, error) {
	found := false
	err := editAllowlist(path, func(b []byte, list []string) ([]byte, []string, error) {
		if !slices.Contains(list, entry) {
			return nil, nil, nil
		}
		found = true
		out, err := removeEntry(b, entry)
		return out, slices.DeleteFunc(slices.Clone(list), func(s string) bool { return s == entry }), err
	})
	return found, err
}

// editAllowlist is editKey for command_allowlist.
func editAllowlist(path string, edit func(b []byte, list []string) ([]byte, []string, error)) error {
	return editKey(path, "command_allowlist", decodeForEdit, slices.Equal[[]string], edit)
}

// decodeForEdit returns the document's settings other than
// command_allowlist, and command_allowlist.
func decodeForEdit(b []byte) (map[string]any, []string, error) {
	var m map[string]any
	var doc struct {
		List []string `yaml:"command_allowlist"`
	}
	if len(bytes.TrimSpace(b)) > 0 {
		if err := yaml.Unmarshal(b, &m); err != nil {
			return nil, nil, err
		}
		if err := yaml.Unmarshal(b, &doc); err != nil {
			return nil, nil, err
		}
	}
	delete(m, "command_allowlist")
	if len(m) == 0 {
		m = nil
	}
	return m, doc.List, nil
}

// text is a file as lines, to edit by line and column (both 1-based, as
// the parser reports them).
type text struct {
	lines []string
	eol   string
}

func newText(b []byte) *text {
	t := &text{eol: "\n"}
	if bytes.Contains(b, []byte("\r\n")) {
		t.eol = "\r\n"
	}
	s := strings.TrimSuffix(strings.ReplaceAll(string(b), "\r\n", "\n"), "\n")
	if s != "" {
		t.lines = strings.Split(s, "\n")
	}
	return t
}

func (t *text) bytes() []byte { return []byte(strings.Join(t.lines, t.eol) + t.eol) }

// insertAfter puts lines after line n (0: at the top).
func (t *text) insertAfter(n int, lines ...string) {
	t.lines = slices.Insert(t.lines, n, lines...)
}

// quote writes s as a YAML scalar, quoted only when it must be.
func quote(s string) string {
	b, err := yaml.Marshal(s)
	if err != nil {
		return fmt.Sprintf("%q", s)
	}
	return strings.TrimSpace(string(b))
}

func appendEntry(b []byte, key string) ([]byte, error) {
	mv, err := topKey(b, "command_allowlist")
	if err != nil {
		return nil, err
	}
	t := newText(b)
	item := "- " + quote(key)
	if mv == nil {
		t.lines = append(t.lines, "command_allowlist:", "  "+item)
		return t.bytes(), nil
	}
	switch v := unwrap(mv.Value).(type) {
	case *ast.NullNode:
		// command_allowlist: (nothing, ~ or null): keep the key and any
		// comment on its line, then start a list under it.
		clearValue(t, mv)
		t.insertAfter(mv.Start.Position.Line, "  "+item)
	case *ast.SequenceNode:
		if v.IsFlowStyle {
			return editFlow(t, v, func(items []string) []string { return append(items, quote(key)) })
		}
		last := v.Values[len(v.Values)-1]
		indent := strings.Repeat(" ", v.Start.Position.Column-1)
		t.insertAfter(lastLine(last), indent+item)
	default:
		return nil, errors.New("it is not a list")
	}
	return t.bytes(), nil
}

func removeEntry(b []byte, entry string) ([]byte, error) {
	mv, err := topKey(b, "command_allowlist")
	if err != nil || mv == nil {
		return nil, err
	}
	v, ok := unwrap(mv.Value).(*ast.SequenceNode)
	if !ok {
		return nil, errors.New("it is not a list")
	}
	t := newText(b)
	if v.IsFlowStyle {
		return editFlow(t, v, func(items []string) []string {
			var keep []string
			for i, it := range items {
				if scalarString(v.Values[i]) != entry {
					keep = append(keep, it)
				}
			}
			return keep
		})
	}
	// Delete the entries' lines, last first so earlier line numbers hold.
	for i := len(v.Entries) - 1; i >= 0; i-- {
		e := v.Entries[i]
		if scalarString(e.Value) != entry {
			continue
		}
		from, to := e.Start.Position.Line, lastLine(e.Value)
		t.lines = slices.Delete(t.lines, from-1, to)
	}
	return t.bytes(), nil
}

// editFlow rewrites a one-line flow list ([a, b]) with change applied to
// its items' source text.
func editFlow(t *text, v *ast.SequenceNode, change func([]string) []string) ([]byte, error) {
	if v.End == nil || v.Start.Position.Line != v.End.Position.Line {
		return nil, errors.New("a list in brackets over several lines cannot be edited safely")
	}
	items := make([]string, len(v.Values))
	for i, it := range v.Values {
		items[i] = strings.TrimSpace(it.GetToken().Origin)
	}
	n := v.Start.Position.Line
	line := []rune(t.lines[n-1])
	open, closing := v.Start.Position.Column-1, v.End.Position.Column-1
	t.lines[n-1] = string(line[:open]) + "[" + strings.Join(change(items), ", ") + "]" + string(line[closing+1:])
	return t.bytes(), nil
}

// lastLine is the line a scalar list item ends on.
func lastLine(n ast.Node) int {
	tok := n.GetToken()
	return tok.Position.Line + strings.Count(strings.TrimRight(strings.TrimLeft(tok.Origin, " \t\r\n"), " \t\r\n"), "\n")
}

// scalarString is a list item's value, as decoding reads it.
func scalarString(n ast.Node) string {
	if s, ok := n.(*ast.StringNode); ok {
		return s.Value
	}
	return n.GetToken().Value
}
