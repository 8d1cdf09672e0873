package config

import (
	"bytes"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"go.yaml.in/yaml/v4"
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
			return nil, nil, fmt.Errorf("sandbox: %w", err) // doc holds nothing else
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
	children, ok, err := blockChildren(*sb)
	if err != nil {
		return nil, err
	}
	if !ok { // sandbox: (nothing)
		line, err := clearValue(t, *sb)
		if err != nil {
			return nil, err
		}
		t.insertAfter(line, "  network:", "    allow:", "      "+item)
		return t.bytes(), nil
	}
	indent := keyIndent(children[0])
	net, found := childNamed(children, "network")
	if !found {
		t.insertAfter(keyLine(*sb), indent+"network:", indent+"  allow:", indent+"    "+item)
		return t.bytes(), nil
	}
	if isString(net.value) {
		// network: on becomes network: {mode: on, allow: [host]}, as a block.
		line, err := clearValue(t, net)
		if err != nil {
			return nil, err
		}
		t.insertAfter(line, indent+"  mode: "+quote(net.value.Value), indent+"  allow:", indent+"    "+item)
		return t.bytes(), nil
	}
	fields, ok, err := blockChildren(net)
	if err != nil {
		return nil, err
	}
	if !ok {
		line, err := clearValue(t, net)
		if err != nil {
			return nil, err
		}
		t.insertAfter(line, indent+"  allow:", indent+"    "+item)
		return t.bytes(), nil
	}
	findent := keyIndent(fields[0])
	allow, found := childNamed(fields, "allow")
	if !found {
		t.insertAfter(keyLine(net), findent+"allow:", findent+"  "+item)
		return t.bytes(), nil
	}
	return appendItem(t, allow, findent, host, errors.New("sandbox.network.allow is not a list"))
}

// blockChildren is the entries of e's value when it is a mapping in
// block style; ok is false when the value is empty (null).
func blockChildren(e entry) ([]entry, bool, error) {
	switch v := e.value; {
	case isNull(v):
		return nil, false, nil
	case v.Kind == yaml.MappingNode && isFlow(v):
		return nil, false, errBraces
	case v.Kind == yaml.MappingNode:
		children := entries(v)
		return children, len(children) > 0, nil
	}
	return nil, false, errors.New(e.key.Value + " is not a mapping")
}

func childNamed(children []entry, name string) (entry, bool) {
	for _, c := range children {
		if c.key.Value == name {
			return c, true
		}
	}
	return entry{}, false
}

func keyLine(e entry) int { return e.key.Line }

func keyIndent(e entry) string { return strings.Repeat(" ", e.key.Column-1) }

// clearValue removes a scalar value (or null, ~) written after e's key,
// keeping the key and any comment on its line. It returns the line.
func clearValue(t *text, e entry) (int, error) {
	n, colon, err := t.colon(e) // the ':' is at rune index colon-1
	if err != nil {
		return 0, err
	}
	line := []rune(t.lines[n-1])
	rest := string(line[colon:])
	if lit := strings.TrimSpace(rest); lit != "" && !strings.HasPrefix(lit, "#") {
		word, _, _ := strings.Cut(lit, " ")
		rest = strings.TrimRight(strings.Replace(rest, " "+word, "", 1), " \t")
	}
	t.lines[n-1] = string(line[:colon]) + rest
	return n, nil
}
