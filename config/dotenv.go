package config

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// SetDotEnv sets variables in the .env file at path (created when
// missing): a line that sets one of them (KEY=, export KEY=) is replaced
// by the first and its repeats dropped, the others are appended, every
// other line stays as it was. The file is replaced atomically and is
// private (0600) afterwards, as it holds secrets.
func SetDotEnv(path string, vars map[string]string) error {
	return editDotEnv(path, vars, nil)
}

// UnsetDotEnv removes every line of the .env file at path that sets one
// of names (KEY=, export KEY=); the other lines stay as they were. A
// missing file, or one that sets none of them, is left alone. It reports
// whether a line was removed.
func UnsetDotEnv(path string, names ...string) (bool, error) {
	for _, k := range names {
		if k == "" || k[0] >= '0' && k[0] <= '9' || !onlyOf(k, wordChars) {
			return false, fmt.Errorf("config: %q is not a variable name", k)
		}
	}
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("config: %w", err)
	}
	found := false
	for _, line := range newText(b).lines {
		found = found || slices.Contains(names, dotEnvKey(line))
	}
	if !found {
		return false, nil
	}
	return true, editDotEnv(path, nil, names)
}

func editDotEnv(path string, vars map[string]string, unset []string) error {
	for k, v := range vars {
		if k == "" || k[0] >= '0' && k[0] <= '9' || !onlyOf(k, wordChars) {
			return fmt.Errorf("config: %q is not a variable name", k)
		}
		if strings.ContainsAny(v, "\r\n") {
			return fmt.Errorf("config: the value of %s holds a line break, which .env cannot hold", k)
		}
	}
	if target, err := filepath.EvalSymlinks(path); err == nil {
		path = target
	}
	b, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("config: %w", err)
	}
	t := newText(b)
	done := map[string]bool{}
	var lines []string
	for _, line := range t.lines {
		k := dotEnvKey(line)
		v, ok := vars[k]
		switch {
		case k != "" && slices.Contains(unset, k):
		case !ok:
			lines = append(lines, line)
		case !done[k]:
			lines = append(lines, k+"="+dotEnvValue(v))
			done[k] = true
		}
	}
	for _, k := range sortedKeys(vars) {
		if !done[k] {
			lines = append(lines, k+"="+dotEnvValue(vars[k]))
		}
	}
	t.lines = lines
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return fmt.Errorf("config: %w", err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".env.*.tmp")
	if err != nil {
		return fmt.Errorf("config: %w", err)
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(t.bytes()); err != nil {
		tmp.Close()
		return fmt.Errorf("config: writing %s: %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("config: writing %s: %w", path, err)
	}
	if err := os.Chmod(tmp.Name(), 0o600); err != nil {
		return fmt.Errorf("config: %w", err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("config: %w", err)
	}
	return nil
}

// dotEnvKey is the variable a line of .env sets, as LoadDotEnv reads it;
// "" for a comment or a line that sets none.
func dotEnvKey(line string) string {
	line = strings.TrimSpace(line)
	if strings.HasPrefix(line, "#") {
		return ""
	}
	k, _, ok := strings.Cut(strings.TrimPrefix(line, "export "), "=")
	if !ok {
		return ""
	}
	return strings.TrimSpace(k)
}

// dotEnvValue writes v so that LoadDotEnv reads it back: in double
// quotes when it is empty or holds spaces, quotes or #.
func dotEnvValue(v string) string {
	if v == "" || strings.ContainsAny(v, " \t#\"'") {
		return `"` + v + `"`
	}
	return v
}
