package config

import (
	"bytes"
	"errors"
	"slices"
	"strings"

	"go.yaml.in/yaml/v4"
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

func appendEntry(b []byte, key string) ([]byte, error) {
	e, err := topKey(b, "command_allowlist")
	if err != nil {
		return nil, err
	}
	t := newText(b)
	item := "- " + quote(key)
	if e == nil {
		t.lines = append(t.lines, "command_allowlist:", "  "+item)
		return t.bytes(), nil
	}
	return appendItem(t, *e, "", key, errors.New("it is not a list"))
}

// appendItem adds value to the list that is e's value, in the list's own
// style (block or flow), and returns the edited file. An empty value
// (nothing, ~ or null) keeps the key and any comment on its line and
// starts a block list under it, indented past indent; notList is the
// error for a value of another kind.
func appendItem(t *text, e entry, indent, value string, notList error) ([]byte, error) {
	item := "- " + quote(value)
	switch v := e.value; {
	case isNull(v):
		line, err := clearValue(t, e)
		if err != nil {
			return nil, err
		}
		t.insertAfter(line, indent+"  "+item)
	case v.Kind == yaml.SequenceNode && isFlow(v):
		return editFlow(t, v, func(items []string) []string { return append(items, quote(value)) })
	case v.Kind == yaml.SequenceNode:
		_, last, err := t.itemLines(v.Content[len(v.Content)-1])
		if err != nil {
			return nil, err
		}
		t.insertAfter(last, strings.Repeat(" ", v.Column-1)+item)
	default:
		return nil, notList
	}
	return t.bytes(), nil
}

func removeEntry(b []byte, entry string) ([]byte, error) {
	e, err := topKey(b, "command_allowlist")
	if err != nil || e == nil {
		return nil, err
	}
	v := e.value
	if v.Kind != yaml.SequenceNode {
		return nil, errors.New("it is not a list")
	}
	t := newText(b)
	if isFlow(v) {
		return editFlow(t, v, func(items []string) []string {
			var keep []string
			for i, it := range items {
				if v.Content[i].Value != entry {
					keep = append(keep, it)
				}
			}
			return keep
		})
	}
	// Delete the entries' lines, last first so earlier line numbers hold.
	for i := len(v.Content) - 1; i >= 0; i-- {
		it := v.Content[i]
		if it.Kind != yaml.ScalarNode || it.Value != entry {
			continue
		}
		from, to, err := t.itemLines(it)
		if err != nil {
			return nil, err
		}
		t.lines = slices.Delete(t.lines, from-1, to)
	}
	return t.bytes(), nil
}

// editFlow rewrites a one-line flow list ([a, b]) with change applied to
// its items' source text.
func editFlow(t *text, v *yaml.Node, change func([]string) []string) ([]byte, error) {
	items, closing, err := t.flowItems(v)
	if err != nil {
		return nil, err
	}
	if len(items) != len(v.Content) {
		return nil, errLayout
	}
	n := v.Line
	line := []rune(t.lines[n-1])
	open := v.Column - 1
	t.lines[n-1] = string(line[:open]) + "[" + strings.Join(change(items), ", ") + "]" + string(line[closing+1:])
	return t.bytes(), nil
}
