package config

import (
	"bytes"
	"errors"
	"maps"
	"slices"
	"strings"

	"github.com/goccy/go-yaml"
	"github.com/goccy/go-yaml/ast"
)

// AddNetworkAllow appends host to sandbox.network.allow in the config
// file (created when missing), for an answer "always" to a network
// question. The file is edited as text: comments, layout and every other
// setting stay as they were; a mode given alone (network: on) becomes the
// mode: of the mapping. A host already listed is left alone. A layout
// the editor cannot change safely (braces) is an error naming the key.
func AddNetworkAllow(path, host string) error {
	return editKey(path, "sandbox.network.allow", decodeNetworkAllow, slices.Equal[[]string],
		func(b []byte, list []string) ([]byte, []string, error) {
			if slices.Contains(list, host) {
				return nil, nil, nil
			}
			out, err := appendNetworkAllow(b, host)
			return out, append(slices.Clone(list), host), err
		})
}

// decodeNetworkAllow returns the document's settings other than
// sandbox.network.allow, with sandbox.network in its mapping form, and
// sandbox.network.allow.
func decodeNetworkAllow(b []byte) (map[string]any, []string, error) {
	var m map[string]any
	var doc struct {
		Sandbox struct {
			Network Network `yaml:"network"`
		} `yaml:"sandbox"`
	}
	if len(bytes.TrimSpace(b)) > 0 {
		if err := yaml.Unmarshal(b, &m); err != nil {
			return nil, nil, err
		}
		if err := yaml.Unmarshal(b, &doc); err != nil {
			return nil, nil, err
		}
	}
	if v, ok := m["sandbox"]; ok {
		sb, _ := v.(map[string]any)
		if v != nil && sb == nil {
			return m, doc.Sandbox.Network.Allow, nil // not a mapping: compared as it is
		}
		sb = maps.Clone(sb)
		switch n := sb["network"].(type) {
		case string:
			sb["network"] = map[string]any{"mode": n}
		case map[string]any:
			n = maps.Clone(n)
			delete(n, "allow")
			sb["network"] = n
		}
		if n, ok := sb["network"].(map[string]any); ok && len(n) == 0 || sb["network"] == nil {
			delete(sb, "network")
		}
		if len(sb) == 0 {
			delete(m, "sandbox")
		} else {
			m["sandbox"] = sb
		}
	}
	if len(m) == 0 {
		m = nil
	}
	return m, doc.Sandbox.Network.Allow, nil
}

var errBraces = errors.New("a mapping in braces cannot be edited safely")

func appendNetworkAllow(b []byte, host string) ([]byte, error) {
	sb, err := topKey(b, "sandbox")
	if err != nil {
		return nil, err
	}
	t := newText(b)
	item := "- " + quote(host)
	if sb == nil {
		t.lines = append(t.lines, "sandbox:", "  network:", "    allow:", "      "+item)
		return t.bytes(), nil
	}
	children, ok, err := blockChildren(sb)
	if err != nil {
		return nil, err
	}
	if !ok { // sandbox: (nothing)
		clearValue(t, sb)
		t.insertAfter(keyLine(sb), "  network:", "    allow:", "      "+item)
		return t.bytes(), nil
	}
	indent := keyIndent(children[0])
	net := childNamed(children, "network")
	if net == nil {
		t.insertAfter(keyLine(sb), indent+"network:", indent+"  allow:", indent+"    "+item)
		return t.bytes(), nil
	}
	if s, ok := unwrap(net.Value).(*ast.StringNode); ok {
		// network: on becomes network: {mode: on, allow: [host]}, as a block.
		clearValue(t, net)
		t.insertAfter(keyLine(net), indent+"  mode: "+quote(s.Value), indent+"  allow:", indent+"    "+item)
		return t.bytes(), nil
	}
	fields, ok, err := blockChildren(net)
	if err != nil {
		return nil, err
	}
	if !ok {
		clearValue(t, net)
		t.insertAfter(keyLine(net), indent+"  allow:", indent+"    "+item)
		return t.bytes(), nil
	}
	findent := keyIndent(fields[0])
	allow := childNamed(fields, "allow")
	if allow == nil {
		t.insertAfter(keyLine(net), findent+"allow:", findent+"  "+item)
		return t.bytes(), nil
	}
	switch v := unwrap(allow.Value).(type) {
	case *ast.NullNode:
		clearValue(t, allow)
		t.insertAfter(keyLine(allow), findent+"  "+item)
	case *ast.SequenceNode:
		if v.IsFlowStyle {
			return editFlow(t, v, func(items []string) []string { return append(items, quote(host)) })
		}
		t.insertAfter(lastLine(v.Values[len(v.Values)-1]), strings.Repeat(" ", v.Start.Position.Column-1)+item)
	default:
		return nil, errors.New("sandbox.network.allow is not a list")
	}
	return t.bytes(), nil
}

// blockChildren is the entries of mv's value when it is a mapping in
// block style; ok is false when the value is empty (null).
func blockChildren(mv *ast.MappingValueNode) ([]*ast.MappingValueNode, bool, error) {
	switch v := unwrap(mv.Value).(type) {
	case *ast.NullNode:
		return nil, false, nil
	case *ast.MappingNode:
		if v.IsFlowStyle {
			return nil, false, errBraces
		}
		return v.Values, len(v.Values) > 0, nil
	case *ast.MappingValueNode:
		return []*ast.MappingValueNode{v}, true, nil
	}
	return nil, false, errors.New(keyName(mv) + " is not a mapping")
}

func childNamed(children []*ast.MappingValueNode, name string) *ast.MappingValueNode {
	for _, c := range children {
		if keyName(c) == name {
			return c
		}
	}
	return nil
}

func keyLine(mv *ast.MappingValueNode) int { return mv.Key.GetToken().Position.Line }

func keyIndent(mv *ast.MappingValueNode) string {
	return strings.Repeat(" ", mv.Key.GetToken().Position.Column-1)
}

// clearValue removes a scalar value (or null, ~) written after mv's key,
// keeping the key and any comment on its line.
func clearValue(t *text, mv *ast.MappingValueNode) {
	n := mv.Start.Position.Line
	line := []rune(t.lines[n-1])
	colon := mv.Start.Position.Column // the ':' is at rune index colon-1
	rest := string(line[colon:])
	if lit := strings.TrimSpace(rest); lit != "" && !strings.HasPrefix(lit, "#") {
		word, _, _ := strings.Cut(lit, " ")
		rest = strings.TrimRight(strings.Replace(rest, " "+word, "", 1), " \t")
	}
	t.lines[n-1] = string(line[:colon]) + rest
}
