package config

import (
	"fmt"
	"math"
	"reflect"
	"sort"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v4"

	"github.com/hermes-go/hermes/internal/editdist"
)

// keyIndex is what checkKeys learns about a document: every key it
// holds, by dotted path ("agent.max_turns", "hooks.pre_tool_call[0].command"),
// with its line; and the keys nothing reads.
type keyIndex struct {
	lines    map[string]int
	warnings []string
}

// at returns "file:line" for a key of the document, or file alone.
func (k *keyIndex) at(file, key string) string {
	if n := k.line(key); n > 0 {
		return fmt.Sprintf("%s:%d", file, n)
	}
	return file
}

// line is a key's line in the document; 0 when it holds no such key
// (or there is no document).
func (k *keyIndex) line(key string) int {
	if k == nil {
		return 0
	}
	return k.lines[key]
}

// checkKeys walks the document against Config's yaml tags, at every
// depth, so a typo anywhere is reported instead of ignored.
func checkKeys(body *yaml.Node, file string) *keyIndex {
	k := &keyIndex{lines: map[string]int{}}
	k.walk(body, reflect.TypeFor[Config](), "", file)
	return k
}

var modelType = reflect.TypeFor[Model]()

func (k *keyIndex) walk(n *yaml.Node, t reflect.Type, prefix, file string) {
	if n == nil {
		return
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == modelType {
		t = reflect.TypeFor[modelDoc]() // model: is a name or a mapping
	}
	switch t.Kind() {
	case reflect.Struct:
		for _, e := range entries(n) {
			name := e.key.Value
			if name == "<<" {
				continue // a merge key: its keys are checked where they are defined
			}
			path := join(prefix, name)
			k.lines[path] = e.key.Line
			ft, ok := fieldByTag(t, name)
			if !ok {
				k.warnings = append(k.warnings, fmt.Sprintf("%s:%d: unknown key %q ignored%s",
					file, k.lines[path], path, suggest(t, prefix, name)))
				continue
			}
			k.walk(e.value, ft, path, file)
		}
	case reflect.Map:
		for _, e := range entries(n) {
			path := join(prefix, e.key.Value)
			k.lines[path] = e.key.Line
			k.walk(e.value, t.Elem(), path, file)
		}
	case reflect.Slice:
		if n.Kind == yaml.SequenceNode {
			for i, v := range n.Content {
				path := fmt.Sprintf("%s[%d]", prefix, i)
				if v.Line > 0 {
					k.lines[path] = v.Line
				}
				k.walk(v, t.Elem(), path, file)
			}
		}
	}
}

func join(prefix, name string) string {
	if prefix == "" {
		return name
	}
	return prefix + "." + name
}

// quotedNumbers lets a number in quotes set a number setting, as it
// always has (max_turns: "50" is 50, "1e2" is 100): YAML reads "50" as a
// string, which the decoder puts in no number. A negative integer in
// quotes stays an error.
func quotedNumbers(n *yaml.Node, t reflect.Type) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == modelType {
		t = reflect.TypeFor[modelDoc]()
	}
	switch t.Kind() {
	case reflect.Struct:
		for _, e := range entries(n) {
			if ft, ok := fieldByTag(t, e.key.Value); ok {
				quotedNumbers(e.value, ft)
			}
		}
	case reflect.Map:
		for _, e := range entries(n) {
			quotedNumbers(e.value, t.Elem())
		}
	case reflect.Slice:
		if n.Kind == yaml.SequenceNode {
			for _, v := range n.Content {
				quotedNumbers(v, t.Elem())
			}
		}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Float32, reflect.Float64:
		if !isString(n) {
			return
		}
		f, err := strconv.ParseFloat(n.Value, 64)
		float := t.Kind() == reflect.Float32 || t.Kind() == reflect.Float64
		if err == nil && !math.IsInf(f, 0) && !math.IsNaN(f) && (f >= 0 || float) {
			n.Tag = "!!float"
			n.Value = strconv.FormatFloat(f, 'g', -1, 64)
		}
	}
}

// yamlFields lists a struct's keys and their types.
func yamlFields(t reflect.Type) map[string]reflect.Type {
	out := map[string]reflect.Type{}
	for i := range t.NumField() {
		f := t.Field(i)
		name, opts, _ := strings.Cut(f.Tag.Get("yaml"), ",")
		if name == "-" || !f.IsExported() {
			continue
		}
		if opts == "inline" && f.Type.Kind() == reflect.Struct {
			for k, ft := range yamlFields(f.Type) { // an embedded struct's keys are its parent's
				out[k] = ft
			}
			continue
		}
		if name == "" {
			name = strings.ToLower(f.Name)
		}
		out[name] = f.Type
	}
	return out
}

func fieldByTag(t reflect.Type, name string) (reflect.Type, bool) {
	ft, ok := yamlFields(t)[name]
	return ft, ok
}

// suggest proposes the key that was probably meant: a near spelling at
// the same level, or the same name in a section (max_turns at the top
// means agent.max_turns).
func suggest(t reflect.Type, prefix, name string) string {
	best, bestD := "", 3 // at most two edits
	for k := range yamlFields(t) {
		if d := editdist.Distance(name, k); d < bestD || d == bestD && k < best {
			best, bestD = k, d
		}
	}
	if best != "" && bestD*2 < len(name) {
		return fmt.Sprintf(" (did you mean %q?)", join(prefix, best))
	}
	if prefix == "" {
		var in []string
		for section, st := range yamlFields(t) {
			for st.Kind() == reflect.Pointer {
				st = st.Elem()
			}
			if st.Kind() == reflect.Struct && st != modelType {
				if _, ok := yamlFields(st)[name]; ok {
					in = append(in, section+"."+name)
				}
			}
		}
		if len(in) > 0 {
			sort.Strings(in)
			return fmt.Sprintf(" (did you mean %q?)", in[0])
		}
	}
	return ""
}
