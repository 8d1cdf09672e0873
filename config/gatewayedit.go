package config

import (
	"bytes"
	"errors"
	"fmt"
	"reflect"
	"strings"

	"go.yaml.in/yaml/v4"
)

// Setting is one key of gateway.platforms.<name> for SetGatewayPlatform
// to write; Value is a string, a bool or a []string.
type Setting struct {
	Key   string
	Value any
}

// SetGatewayPlatform writes settings into gateway.platforms.<platform>
// of the config file (created when missing), as text: a key already
// there gets the new value in its place (a comment on its line stays),
// a new one is added at the end of the block, the blocks above it are
// created when missing, and every other line, comments and layout
// included, stays as it was. The edit is refused when it would change
// any other setting.
func SetGatewayPlatform(path, platform string, settings ...Setting) error {
	var pt reflect.Type
	for _, f := range reflect.VisibleFields(reflect.TypeFor[Platforms]()) {
		if tagName(f) == platform {
			pt = f.Type
		}
	}
	if pt == nil {
		return fmt.Errorf("config: no platform %q (platforms: %s)", platform, strings.Join(GatewayPlatformNames(), ", "))
	}
	fields := yamlFields(pt)
	rendered := make([]string, len(settings))
	for i, s := range settings {
		if _, ok := fields[s.Key]; !ok {
			return fmt.Errorf("config: gateway.platforms.%s has no key %q", platform, s.Key)
		}
		v, err := renderValue(s.Value)
		if err != nil {
			return fmt.Errorf("config: gateway.platforms.%s.%s: %w", platform, s.Key, err)
		}
		rendered[i] = v
	}
	key := "gateway.platforms." + platform
	same := func(got, want map[string]any) bool {
		return len(got) == 0 && len(want) == 0 || reflect.DeepEqual(got, want)
	}
	return editKey(path, key, decodePlatform(platform), same,
		func(b []byte, cur map[string]any) ([]byte, map[string]any, error) {
			want := map[string]any{}
			for k, v := range cur {
				want[k] = v
			}
			out := b
			for i, s := range settings {
				var err error
				if out, err = setNested(out, []string{"gateway", "platforms", platform}, s.Key, rendered[i]); err != nil {
					return nil, nil, err
				}
				var m map[string]any
				if err := yaml.Unmarshal([]byte(s.Key+": "+rendered[i]), &m); err != nil {
					return nil, nil, err
				}
				want[s.Key] = m[s.Key]
			}
			return out, want, nil
		})
}

// renderValue writes a setting's value as YAML on one line.
func renderValue(v any) (string, error) {
	switch v := v.(type) {
	case string:
		return quote(v), nil
	case bool:
		return fmt.Sprint(v), nil
	case []string:
		items := make([]string, len(v))
		for i, s := range v {
			items[i] = quote(s)
		}
		return "[" + strings.Join(items, ", ") + "]", nil
	}
	return "", fmt.Errorf("a value of type %T cannot be written", v)
}

// decodePlatform returns, for editKey, the document's settings other than
// gateway.platforms.<name> (a gateway or platforms block left empty by
// taking it out counts as absent, as a null one does), and that block.
func decodePlatform(name string) func(b []byte) (map[string]any, map[string]any, error) {
	return func(b []byte) (map[string]any, map[string]any, error) {
		var m map[string]any
		if len(bytes.TrimSpace(b)) > 0 {
			if err := yaml.Unmarshal(b, &m); err != nil {
				return nil, nil, err
			}
		}
		var cur map[string]any
		gw, ok := m["gateway"].(map[string]any)
		if ok {
			if ps, ok := gw["platforms"].(map[string]any); ok {
				if v := ps[name]; v != nil {
					if cur, ok = v.(map[string]any); !ok {
						return nil, nil, fmt.Errorf("gateway.platforms.%s is not a mapping", name)
					}
				}
				delete(ps, name)
				if len(ps) == 0 {
					delete(gw, "platforms")
				}
			}
			if v, ok := gw["platforms"]; ok && v == nil {
				delete(gw, "platforms")
			}
			if len(gw) == 0 {
				delete(m, "gateway")
			}
		}
		if v, ok := m["gateway"]; ok && v == nil {
			delete(m, "gateway")
		}
		if len(m) == 0 {
			m = nil
		}
		return m, cur, nil
	}
}

// setNested sets key: value in the block mapping at path (top-level keys
// first), creating the blocks of path that are missing.
func setNested(b []byte, path []string, key, value string) ([]byte, error) {
	doc, err := parseDocument(b)
	if err != nil {
		return nil, err
	}
	t := newText(b)
	chain := func(names []string, indent string) []string {
		var out []string
		for _, n := range names {
			out = append(out, indent+quote(n)+":")
			indent += "  "
		}
		return append(out, indent+quote(key)+": "+value)
	}
	if doc == nil {
		t.lines = append(t.lines, chain(path, "")...)
		return t.bytes(), nil
	}
	parent := doc.Content[0]
	if parent.Kind != yaml.MappingNode {
		return nil, errors.New("the file is not a mapping of settings")
	}
	end := len(t.lines) // where the parent block's last line is
	for i, name := range path {
		e, found := childNamed(entries(parent), name)
		if !found {
			t.insertAfter(end, chain(path[i:], childIndent(parent))...)
			return t.bytes(), nil
		}
		dotted := strings.Join(path[:i+1], ".")
		switch v := e.value; {
		case isNull(v), v.Kind == yaml.MappingNode && isFlow(v) && len(v.Content) == 0:
			line, err := clearValue(t, e)
			if err != nil {
				return nil, err
			}
			t.insertAfter(line, chain(path[i+1:], keyIndent(e)+"  ")...)
			return t.bytes(), nil
		case v.Kind == yaml.MappingNode && isFlow(v):
			return nil, fmt.Errorf("%s is written in {braces}: edit it by hand", dotted)
		case v.Kind != yaml.MappingNode:
			return nil, fmt.Errorf("%s is not a mapping", dotted)
		}
		parent, end = e.value, entryEnd(t, e)
	}
	e, found := childNamed(entries(parent), key)
	if !found {
		t.insertAfter(end, childIndent(parent)+quote(key)+": "+value)
		return t.bytes(), nil
	}
	line := keyIndent(e) + quote(key) + ": " + value
	if c := e.value.LineComment; c != "" && e.value.Line == e.key.Line {
		line += " " + c
	} else if c := e.key.LineComment; c != "" {
		line += " " + c
	}
	from, to := e.key.Line, entryEnd(t, e)
	t.lines = append(t.lines[:from-1], append([]string{line}, t.lines[to:]...)...)
	return t.bytes(), nil
}

// childIndent is the indentation of a block mapping's keys.
func childIndent(m *yaml.Node) string {
	if len(m.Content) > 0 {
		return strings.Repeat(" ", m.Content[0].Column-1)
	}
	return strings.Repeat(" ", max(m.Column-1, 0))
}

// entryEnd is the last line (1-based) of a block mapping's entry: its
// key's line, the lines indented under it, and a list's items, which may
// sit at the key's own indentation.
func entryEnd(t *text, e entry) int {
	end := blockEnd(t, e.key.Line, indentOf(t.lines[e.key.Line-1]))
	return max(end, lastLine(e.value))
}

// lastLine is the last line a node or its children start on.
func lastLine(n *yaml.Node) int {
	last := n.Line
	for _, c := range n.Content {
		last = max(last, lastLine(c))
	}
	return last
}
