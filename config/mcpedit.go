package config

import (
	"bytes"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v4"
)

// AddMCPServer adds mcp_servers.<name> to the config file (created when
// missing), as text: comments, layout and every other setting stay as
// they were. A name already configured is an error.
func AddMCPServer(path, name string, s MCPServer) error {
	if err := ValidMCPName(name); err != nil {
		return err
	}
	return editMCPServers(path, func(b []byte, servers map[string]any) ([]byte, map[string]any, error) {
		if _, ok := servers[name]; ok {
			return nil, nil, fmt.Errorf("MCP server %s is configured already: remove it first (hermes mcp remove %s)", name, name)
		}
		out, err := appendServer(b, name, s)
		if err != nil {
			return nil, nil, err
		}
		want := mapsClone(servers)
		want[name] = serverValue(s)
		return out, want, nil
	})
}

// RemoveMCPServer removes mcp_servers.<name> from the config file,
// keeping its comments and layout; it reports whether the file held it.
func RemoveMCPServer(path, name string) (bool, error) {
	found := false
	err := editMCPServers(path, func(b []byte, servers map[string]any) ([]byte, map[string]any, error) {
		if _, ok := servers[name]; !ok {
			return nil, nil, nil
		}
		found = true
		out, err := removeServer(b, name)
		if err != nil {
			return nil, nil, err
		}
		want := mapsClone(servers)
		delete(want, name)
		return out, want, nil
	})
	return found, err
}

func mapsClone(m map[string]any) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// serverValue is s as decoding the rendered YAML gives it back.
func serverValue(s MCPServer) any {
	var v any
	if err := yaml.Unmarshal([]byte(strings.Join(serverLines("x", s, "", "  "), "\n")), &v); err != nil {
		return nil
	}
	return v.(map[string]any)["x"]
}

// editMCPServers is editKey for mcp_servers.
func editMCPServers(path string, edit func(b []byte, servers map[string]any) ([]byte, map[string]any, error)) error {
	same := func(got, want map[string]any) bool {
		return len(got) == 0 && len(want) == 0 || reflect.DeepEqual(got, want)
	}
	return editKey(path, "mcp_servers", decodeServers, same, edit)
}

// decodeServers returns the document's settings other than mcp_servers,
// and mcp_servers.
func decodeServers(b []byte) (map[string]any, map[string]any, error) {
	var m map[string]any
	if len(bytes.TrimSpace(b)) > 0 {
		if err := yaml.Unmarshal(b, &m); err != nil {
			return nil, nil, err
		}
	}
	servers := map[string]any{}
	switch v := m["mcp_servers"].(type) {
	case map[string]any:
		servers = v
	case nil:
	default:
		return nil, nil, errors.New("mcp_servers is not a mapping")
	}
	delete(m, "mcp_servers")
	if len(m) == 0 {
		m = nil
	}
	return m, servers, nil
}

// indentOf counts a line's leading spaces.
func indentOf(line string) int { return len(line) - len(strings.TrimLeft(line, " ")) }

func blankOrComment(line string) bool {
	t := strings.TrimSpace(line)
	return t == "" || strings.HasPrefix(t, "#")
}

// blockEnd is the last line (1-based) of the block that starts at line
// start with the given indentation: the last content line indented more.
func blockEnd(t *text, start, indent int) int {
	last := start
	for i := start; i < len(t.lines); i++ { // t.lines[i] is line i+1
		line := t.lines[i]
		if blankOrComment(line) {
			continue
		}
		if indentOf(line) <= indent {
			break
		}
		last = i + 1
	}
	return last
}

func appendServer(b []byte, name string, s MCPServer) ([]byte, error) {
	e, err := topKey(b, "mcp_servers")
	if err != nil {
		return nil, err
	}
	t := newText(b)
	if e == nil {
		t.lines = append(t.lines, "mcp_servers:")
		t.lines = append(t.lines, serverLines(name, s, "  ", "  ")...)
		return t.bytes(), nil
	}
	n, colon, err := t.colon(*e) // the line of "mcp_servers:"
	if err != nil {
		return nil, err
	}
	base := indentOf(t.lines[n-1])
	switch v := e.value; {
	case isNull(v):
		t.lines[n-1] = stripValue(t.lines[n-1], colon)
	case v.Kind == yaml.MappingNode && isFlow(v):
		if len(v.Content) > 0 {
			return nil, errors.New("it is written in {braces}: edit it by hand")
		}
		t.lines[n-1] = stripValue(t.lines[n-1], colon)
	case v.Kind == yaml.MappingNode:
	default:
		return nil, errors.New("it is not a mapping")
	}
	end := blockEnd(t, n, base)
	child := strings.Repeat(" ", base+2)
	for i := n; i < end; i++ {
		if !blankOrComment(t.lines[i]) {
			child = strings.Repeat(" ", indentOf(t.lines[i]))
			break
		}
	}
	t.insertAfter(end, serverLines(name, s, child, "  ")...)
	return t.bytes(), nil
}

// stripValue keeps "key:" and a comment after it, dropping a value
// (null, ~, {}).
func stripValue(line string, colon int) string {
	r := []rune(line)
	head, rest := string(r[:colon]), string(r[colon:])
	if i := strings.Index(rest, "#"); i >= 0 {
		return head + " " + rest[i:]
	}
	return head
}

func removeServer(b []byte, name string) ([]byte, error) {
	e, err := topKey(b, "mcp_servers")
	if err != nil || e == nil {
		return nil, err
	}
	if v := e.value; v.Kind == yaml.MappingNode && isFlow(v) {
		return nil, errors.New("it is written in {braces}: edit it by hand")
	}
	var key *yaml.Node
	for _, c := range entries(e.value) {
		if c.key.Value == name {
			key = c.key
		}
	}
	if key == nil {
		return nil, errors.New("the entry was not found where expected")
	}
	t := newText(b)
	from := key.Line
	to := blockEnd(t, from, indentOf(t.lines[from-1]))
	t.lines = slices.Delete(t.lines, from-1, to)
	return t.bytes(), nil
}

// serverLines renders one server as a block mapping at indent.
func serverLines(name string, s MCPServer, indent, step string) []string {
	in := indent + step
	out := []string{indent + quote(name) + ":"}
	scalar := func(k, v string) {
		if v != "" {
			out = append(out, in+k+": "+quote(v))
		}
	}
	list := func(k string, vs []string) {
		if len(vs) == 0 {
			return
		}
		out = append(out, in+k+":")
		for _, v := range vs {
			out = append(out, in+step+"- "+quote(v))
		}
	}
	mapping := func(k string, m map[string]string) {
		if len(m) == 0 {
			return
		}
		out = append(out, in+k+":")
		keys := make([]string, 0, len(m))
		for key := range m {
			keys = append(keys, key)
		}
		slices.Sort(keys)
		for _, key := range keys {
			out = append(out, in+step+quote(key)+": "+quote(m[key]))
		}
	}
	scalar("type", s.Type)
	scalar("command", s.Command)
	list("args", s.Args)
	mapping("env", s.Env)
	scalar("cwd", s.Cwd)
	scalar("url", s.URL)
	mapping("headers", s.Headers)
	if s.Timeout > 0 {
		out = append(out, in+"timeout: "+strconv.Itoa(s.Timeout))
	}
	if s.ConnectTimeout > 0 {
		out = append(out, in+"connect_timeout: "+strconv.Itoa(s.ConnectTimeout))
	}
	if s.Enabled != nil && !*s.Enabled {
		out = append(out, in+"enabled: false")
	}
	if s.Trusted {
		out = append(out, in+"trusted: true")
	}
	if len(s.Tools.Include) > 0 || len(s.Tools.Exclude) > 0 {
		out = append(out, in+"tools:")
		inner := in + step
		for _, l := range []struct {
			k  string
			vs []string
		}{{"include", s.Tools.Include}, {"exclude", s.Tools.Exclude}} {
			if len(l.vs) == 0 {
				continue
			}
			out = append(out, inner+l.k+":")
			for _, v := range l.vs {
				out = append(out, inner+step+"- "+quote(v))
			}
		}
	}
	return out
}
