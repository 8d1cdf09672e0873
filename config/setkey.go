package config

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v4"
)

// Change is one edit of a dotted key for SetKeys: Value is the new value
// as the user typed it ("60", "true", "gpt-5", "[a, b]"); Unset removes
// the key instead.
type Change struct {
	Key   string
	Value string
	Unset bool
}

// SetKey sets one dotted key ("terminal.timeout", "providers.local.base_url")
// in the config file at path; see SetKeys.
func SetKey(path, key, value string) error {
	return SetKeys(path, Change{Key: key, Value: value})
}

// UnsetKey removes one dotted key from the config file; removing a key
// that is not there changes nothing.
func UnsetKey(path, key string) error {
	return SetKeys(path, Change{Key: key, Unset: true})
}

// SetKeys applies changes to the config file at path (created when
// missing) as text: a key already there gets its new value on its own
// line (a comment on that line stays), a new key goes at the end of its
// section, the sections above it are created when missing, and every
// other line, comments and layout included, stays as it was. The value
// is read as the key's type (a number, true or false, a list as [a, b] or
// a,b, a string). The edited file must then load: a value out of range,
// of the wrong type, or a key no setting has is refused with the reason,
// and the file is left untouched, byte for byte. So is an edit that would
// change any other setting.
func SetKeys(path string, changes ...Change) error {
	if target, err := filepath.EvalSymlinks(path); err == nil {
		path = target // a config.yaml linked from a dotfiles repository stays a link
	}
	b, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("config: %w", err)
	}
	out, err := EditKeys(b, path, changes...)
	if err != nil || bytes.Equal(out, b) {
		return err
	}
	return replaceFile(path, out)
}

// EditKeys is SetKeys on the text of a config file named path; it
// returns the edited text, or an error and nothing.
func EditKeys(b []byte, path string, changes ...Change) ([]byte, error) {
	before, err := decodeAny(b)
	if err != nil {
		return nil, fmt.Errorf("config %s:\n%s", path, formatYAMLError(err, b))
	}
	out := b
	var paths [][]string
	want := map[string]any{}
	for _, c := range changes {
		if _, mapping := before["model"].(map[string]any); mapping && c.Key == "model" {
			c.Key = "model.default" // model: NAME would drop the mapping's other keys
		}
		keys, err := splitKey(c.Key)
		if err != nil {
			return nil, err
		}
		t, err := keyType(keys)
		if err != nil {
			return nil, err
		}
		paths = append(paths, keys)
		if c.Unset {
			if out, err = removeKey(out, keys); err != nil {
				return nil, fmt.Errorf("config %s: %s: %w", path, c.Key, err)
			}
			continue
		}
		v, err := renderFor(t, c.Value)
		if err != nil {
			return nil, fmt.Errorf("config: %s: %w", c.Key, err)
		}
		var m map[string]any
		if err := yaml.Unmarshal([]byte("v: "+v), &m); err != nil {
			return nil, fmt.Errorf("config: %s: %w", c.Key, err)
		}
		want[c.Key] = m["v"]
		if out, err = setNested(out, keys[:len(keys)-1], keys[len(keys)-1], v); err != nil {
			return nil, fmt.Errorf("config %s: %s: %w", path, c.Key, err)
		}
	}
	after, err := decodeAny(out)
	if err != nil {
		return nil, fmt.Errorf("config %s: the edit would not parse (edit it by hand): %w", path, err)
	}
	for k, v := range want {
		keys, _ := splitKey(k)
		if got, _ := lookupAny(after, keys); !reflect.DeepEqual(got, v) {
			return nil, fmt.Errorf("config %s: %s could not be edited without changing other settings; edit it by hand", path, k)
		}
	}
	for _, keys := range paths {
		before, after = dropPath(before, keys), dropPath(after, keys)
	}
	if !reflect.DeepEqual(before, after) {
		return nil, fmt.Errorf("config %s: %s could not be edited without changing other settings; edit it by hand", path, changes[0].Key)
	}
	if _, err := Check(filepath.Dir(path), path, out, func(string) string { return "" }); err != nil {
		return nil, err
	}
	return out, nil
}

// Check reads b, the text of config file path in home, as Load reads
// it: the error names what is wrong (unparsable text, a value out of
// range, a key of the wrong type), and Warnings the keys nothing reads.
func Check(home, path string, b []byte, getenv func(string) string) (*Config, error) {
	c := Default()
	keys, err := c.decode(b, path)
	if err != nil {
		return nil, err
	}
	c.Home, c.Path = home, path
	c.applyEnv(getenv)
	if err := c.validateGateway(keys, path); err != nil {
		return nil, err
	}
	c.fillDefaults()
	return c, nil
}

func decodeAny(b []byte) (map[string]any, error) {
	var m map[string]any
	if len(bytes.TrimSpace(b)) == 0 {
		return nil, nil
	}
	if err := yaml.Unmarshal(b, &m); err != nil {
		return nil, err
	}
	return m, nil
}

// splitKey splits a dotted key into its names.
func splitKey(key string) ([]string, error) {
	key = strings.TrimSpace(key)
	if key == "" {
		return nil, errors.New("config: no key named")
	}
	parts := strings.Split(key, ".")
	for _, p := range parts {
		if p == "" {
			return nil, fmt.Errorf("config: %q is not a dotted key (e.g. terminal.timeout)", key)
		}
		if strings.ContainsAny(p, "[]") {
			return nil, fmt.Errorf("config: %q: list items cannot be set one by one; set the whole list", key)
		}
	}
	return parts, nil
}

// keyType is the type of the setting a dotted key names, walking
// Config's yaml tags (a map's keys are any name); an unknown key is an
// error naming the key probably meant.
func keyType(keys []string) (reflect.Type, error) {
	t := reflect.TypeFor[Config]()
	for i, name := range keys {
		for t.Kind() == reflect.Pointer {
			t = t.Elem()
		}
		if t == modelType {
			t = reflect.TypeFor[modelDoc]()
		}
		prefix := strings.Join(keys[:i], ".")
		switch t.Kind() {
		case reflect.Struct:
			ft, ok := fieldByTag(t, name)
			if !ok {
				return nil, fmt.Errorf("config: no setting %q%s", join(prefix, name), suggest(t, prefix, name))
			}
			t = ft
		case reflect.Map:
			t = t.Elem()
		default:
			return nil, fmt.Errorf("config: %s is a single value, it has no key %q", prefix, name)
		}
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t, nil
}

// SettingType says what kind of value a dotted key holds: "string",
// "number", "bool", "list", "section"; an unknown key is an error.
func SettingType(key string) (string, error) {
	keys, err := splitKey(key)
	if err != nil {
		return "", err
	}
	t, err := keyType(keys)
	if err != nil {
		return "", err
	}
	switch t.Kind() {
	case reflect.String:
		return "string", nil
	case reflect.Bool:
		return "bool", nil
	case reflect.Int, reflect.Int64, reflect.Float64:
		return "number", nil
	case reflect.Slice:
		return "list", nil
	}
	if t == modelType {
		return "string", nil
	}
	return "section", nil
}

// renderFor writes value, as typed, as the YAML of a setting of type t
// on one line; a value that is not of the type is an error saying what
// is wanted.
func renderFor(t reflect.Type, value string) (string, error) {
	v := strings.TrimSpace(value)
	if t == modelType {
		return quote(value), nil // model: NAME
	}
	switch t.Kind() {
	case reflect.String:
		return quote(value), nil
	case reflect.Bool:
		switch strings.ToLower(v) {
		case "true", "yes", "on", "1":
			return "true", nil
		case "false", "no", "off", "0":
			return "false", nil
		}
		return "", fmt.Errorf("%q is not allowed (true or false)", value)
	case reflect.Int, reflect.Int64:
		if _, err := strconv.ParseInt(v, 10, 64); err != nil {
			return "", fmt.Errorf("%q is not allowed (a whole number)", value)
		}
		return v, nil
	case reflect.Float64:
		if _, err := strconv.ParseFloat(v, 64); err != nil {
			return "", fmt.Errorf("%q is not allowed (a number)", value)
		}
		return v, nil
	case reflect.Slice:
		if t.Elem().Kind() == reflect.String {
			var items []string
			if strings.HasPrefix(v, "[") {
				if err := yaml.Unmarshal([]byte(v), &items); err != nil {
					return "", fmt.Errorf("%q is not a list of names ([a, b] or a,b): %w", value, err)
				}
			} else if v != "" {
				for _, s := range strings.Split(v, ",") {
					if s = strings.TrimSpace(s); s != "" {
						items = append(items, s)
					}
				}
			}
			return renderValue(nonNilStrings(items))
		}
	}
	// A section or a list of sections: YAML on one line, in brackets.
	if (strings.HasPrefix(v, "{") || strings.HasPrefix(v, "[")) && !strings.Contains(v, "\n") {
		var n yaml.Node
		if err := yaml.Unmarshal([]byte(v), &n); err != nil {
			return "", fmt.Errorf("%q is not YAML: %w", value, err)
		}
		return v, nil
	}
	return "", fmt.Errorf("it is a section: set its keys one by one (KEY.NAME VALUE), or give it whole in YAML braces ({name: value})")
}

func nonNilStrings(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// lookupAny is the value at keys in a decoded document.
func lookupAny(m map[string]any, keys []string) (any, bool) {
	var cur any = m
	for _, k := range keys {
		mm, ok := cur.(map[string]any)
		if !ok {
			return nil, false
		}
		if cur, ok = mm[k]; !ok {
			return nil, false
		}
	}
	return cur, true
}

// dropPath returns m without the value at keys, and without the
// sections on the way that are left empty (or were null): what is left
// is what an edit of keys must not change.
func dropPath(m map[string]any, keys []string) map[string]any {
	if m == nil {
		return nil
	}
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = v
	}
	k := keys[0]
	if len(keys) == 1 {
		delete(out, k)
	} else if sub, ok := out[k].(map[string]any); ok || out[k] == nil {
		if s := dropPath(sub, keys[1:]); len(s) > 0 {
			out[k] = s
		} else {
			delete(out, k)
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// removeKey removes the entry at keys (its key line and the lines of its
// value) from b; the comments above it stay. A key that is not there is
// no change.
func removeKey(b []byte, keys []string) ([]byte, error) {
	doc, err := parseDocument(b)
	if err != nil || doc == nil {
		return b, err
	}
	parent := doc.Content[0]
	var e entry
	for i, name := range keys {
		if parent.Kind == yaml.MappingNode && isFlow(parent) {
			return nil, fmt.Errorf("%s is written in {braces}: edit it by hand", strings.Join(keys[:i], "."))
		}
		found := false
		if e, found = childNamed(entries(parent), name); !found {
			return b, nil
		}
		parent = e.value
	}
	t := newText(b)
	from, to := e.key.Line, entryEnd(t, e)
	if from < 1 || to > len(t.lines) {
		return nil, errLayout
	}
	t.lines = append(t.lines[:from-1], t.lines[to:]...)
	return t.bytes(), nil
}

// AuxTasks are the auxiliary tasks that may have a model of their own
// (auxiliary.<task>).
func AuxTasks() []string { return append([]string{}, auxTasks...) }
