package code

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/hermes-go/hermes/tool"
)

// param is one argument of a tool as the generated function takes it.
type param struct {
	name     string
	typ      string // Python annotation, "" when the schema names none
	required bool
}

// function is a tool as a Python function of hermes_tools.
type function struct {
	name   string // Python identifier
	tool   string // the tool's name
	params []param
	// extra is set when some argument names are no Python identifiers:
	// they are passed as **kwargs.
	extra bool
	doc   string
}

// pyType is the Python annotation of a JSON schema type.
func pyType(t string) string {
	switch t {
	case "string":
		return "str"
	case "integer":
		return "int"
	case "number":
		return "float"
	case "boolean":
		return "bool"
	case "array":
		return "list"
	case "object":
		return "dict"
	}
	return ""
}

// pyKeywords are names Python does not accept as identifiers.
var pyKeywords = []string{
	"False", "None", "True", "and", "as", "assert", "async", "await", "break", "class",
	"continue", "def", "del", "elif", "else", "except", "finally", "for", "from", "global",
	"if", "import", "in", "is", "lambda", "nonlocal", "not", "or", "pass", "raise",
	"return", "try", "while", "with", "yield",
}

func isIdent(s string) bool {
	if s == "" || slices.Contains(pyKeywords, s) || strings.HasPrefix(s, "_") {
		return false
	}
	for i, r := range s {
		ok := r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || i > 0 && r >= '0' && r <= '9'
		if !ok {
			return false
		}
	}
	return true
}

// pyName makes a tool's name a Python identifier.
func pyName(s string) string {
	var b strings.Builder
	for i, r := range s {
		if r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || i > 0 && r >= '0' && r <= '9' {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
	}
	n := strings.TrimLeft(b.String(), "_")
	if n == "" || slices.Contains(pyKeywords, n) || n == "ToolError" {
		n += "_tool"
	}
	return n
}

// functionOf reads a tool's schema: its properties in the order the
// schema lists them, required ones first.
func functionOf(s tool.Spec) function {
	f := function{name: pyName(s.Name), tool: s.Name, doc: s.Description}
	var schema struct {
		Properties json.RawMessage `json:"properties"`
		Required   []string        `json:"required"`
	}
	if len(s.Parameters) > 0 {
		json.Unmarshal(s.Parameters, &schema)
	}
	for _, name := range orderedKeys(schema.Properties) {
		if s.Name == "terminal" && name == "background" {
			continue // refused inside a script
		}
		if !isIdent(name) {
			f.extra = true
			continue
		}
		var prop struct {
			Type json.RawMessage `json:"type"`
		}
		json.Unmarshal(propertyOf(schema.Properties, name), &prop)
		var typ string
		json.Unmarshal(prop.Type, &typ)
		f.params = append(f.params, param{name: name, typ: pyType(typ), required: slices.Contains(schema.Required, name)})
	}
	slices.SortStableFunc(f.params, func(a, b param) int {
		switch {
		case a.required == b.required:
			return 0
		case a.required:
			return -1
		}
		return 1
	})
	return f
}

// orderedKeys lists an object's keys in the order they appear.
func orderedKeys(obj json.RawMessage) []string {
	if len(obj) == 0 {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(obj))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil
	}
	var keys []string
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return keys
		}
		k, _ := t.(string)
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return keys
		}
		keys = append(keys, k)
	}
	return keys
}

func propertyOf(obj json.RawMessage, name string) json.RawMessage {
	var m map[string]json.RawMessage
	json.Unmarshal(obj, &m)
	return m[name]
}

// signature is the function's Python signature, as the tool's description
// shows it and the module defines it.
func (f function) signature() string {
	var args []string
	for _, p := range f.params {
		a := p.name
		if p.typ != "" {
			a += ": " + p.typ
		}
		if !p.required {
			if p.typ != "" {
				a += " = None"
			} else {
				a += "=None"
			}
		}
		args = append(args, a)
	}
	if f.extra {
		args = append(args, "**_extra")
	}
	return f.name + "(" + strings.Join(args, ", ") + ")"
}

// pyString is s as a Python string literal: a JSON string is one.
func pyString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// moduleSource is hermes_tools.py for the given functions.
func moduleSource(fns []function) string {
	var b strings.Builder
	b.WriteString(moduleHeader)
	var names []string
	for _, f := range fns {
		names = append(names, pyString(f.name))
		fmt.Fprintf(&b, "\ndef %s:\n", f.signature())
		var items []string
		for _, p := range f.params {
			items = append(items, fmt.Sprintf("%s: %s", pyString(p.name), p.name))
		}
		if f.extra {
			fmt.Fprintf(&b, "    return _call(%s, {**{%s}, **_extra})\n", pyString(f.tool), strings.Join(items, ", "))
		} else {
			fmt.Fprintf(&b, "    return _call(%s, {%s})\n", pyString(f.tool), strings.Join(items, ", "))
		}
		fmt.Fprintf(&b, "%s.__doc__ = %s\n", f.name, pyString(f.doc))
	}
	fmt.Fprintf(&b, "\n__all__ = [\"ToolError\", %s]\n", strings.Join(names, ", "))
	return b.String()
}

// moduleHeader is the part of hermes_tools that does not depend on the
// tools: the connection to hermes and ToolError.
const moduleHeader = `"""The agent's tools as Python functions.

Each function calls the tool of the same name in hermes and returns its
result: parsed JSON when the result is a JSON object or array, else the
text. A failed call raises ToolError.
"""
import json as _json
import os as _os
import socket as _socket
import threading as _threading

_SOCKET = _os.environ.pop("HERMES_TOOLS_SOCKET", "")
_TOKEN = _os.environ.pop("HERMES_TOOLS_TOKEN", "")
_lock = _threading.Lock()
_io = None


class ToolError(Exception):
    """A tool call failed; str(error) is the tool's message, error.tool its name."""

    def __init__(self, tool, message):
        super().__init__(message)
        self.tool = tool


def _call(tool, args):
    global _io
    args = {k: v for k, v in args.items() if v is not None}
    msg = _json.dumps({"token": _TOKEN, "tool": tool, "args": args}).encode() + b"\n"
    with _lock:
        if _io is None:
            if not _SOCKET:
                raise ToolError(tool, "hermes_tools works only inside execute_code")
            s = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
            s.connect(_SOCKET)
            _io = s.makefile("rwb")
        _io.write(msg)
        _io.flush()
        line = _io.readline()
    if not line:
        raise ToolError(tool, "the connection to hermes was closed")
    reply = _json.loads(line)
    if not reply.get("ok"):
        raise ToolError(tool, reply.get("error") or "the tool call failed")
    result = reply.get("result")
    if isinstance(result, str) and result.lstrip()[:1] in ("{", "["):
        try:
            return _json.loads(result)
        except ValueError:
            pass
    return result

`
