package file

import (
	"fmt"
	"strings"
	"testing"
)

func TestReadFileNumbersLinesAndPages(t *testing.T) {
	ft, dir := newTools(t)
	var body strings.Builder
	for i := 1; i <= 10; i++ {
		fmt.Fprintf(&body, "line %d\n", i)
	}
	writeFiles(t, dir, map[string]string{"a.txt": body.String(), "empty.txt": "", "bin.dat": "PK\x00\x03binary", "sub/x.go": "package x"})
	tests := []struct {
		name     string
		args     map[string]any
		isErr    bool
		contains []string
		absent   []string
	}{
		{"whole file", map[string]any{"path": "a.txt"}, false, []string{"     1|line 1\n", "    10|line 10\n", "[end of file: 10 lines"}, nil},
		{"offset and limit", map[string]any{"path": "a.txt", "offset": 3, "limit": 2}, false, []string{"     3|line 3\n", "     4|line 4\n", "continue with offset=5"}, []string{"line 2\n", "line 5\n"}},
		{"offset past end", map[string]any{"path": "a.txt", "offset": 50}, false, []string{"has 10 lines; offset 50 is past the end"}, nil},
		{"empty file", map[string]any{"path": "empty.txt"}, false, []string{"is empty"}, nil},
		{"no trailing newline", map[string]any{"path": "sub/x.go"}, false, []string{"     1|package x\n"}, nil},
		{"binary refused", map[string]any{"path": "bin.dat"}, true, []string{"binary file"}, []string{"PK"}},
		{"missing file suggests", map[string]any{"path": "a.md"}, true, []string{"does not exist", "Did you mean", "a.txt"}, nil},
		{"directory refused", map[string]any{"path": "sub"}, true, []string{"is a directory"}, nil},
		{"absolute path", map[string]any{"path": dir + "/a.txt", "limit": 1}, false, []string{"     1|line 1\n"}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := call(t, ft.ReadFile(), tc.args)
			if res.IsError != tc.isErr {
				t.Fatalf("IsError = %v, want %v: %s", res.IsError, tc.isErr, res.Content)
			}
			for _, s := range tc.contains {
				if !strings.Contains(res.Content, s) {
					t.Errorf("missing %q in:\n%s", s, res.Content)
				}
			}
			for _, s := range tc.absent {
				if strings.Contains(res.Content, s) {
					t.Errorf("unexpected %q in:\n%s", s, res.Content)
				}
			}
		})
	}
}

func TestReadFileCapsOutputBytes(t *testing.T) {
	dir := t.TempDir()
	ft := New(Options{Workdir: func(string) string { return dir }, MaxReadBytes: 100, MaxLineLength: 20})
	writeFiles(t, dir, map[string]string{"big.txt": strings.Repeat("0123456789\n", 100), "long.txt": strings.Repeat("x", 50) + "\n"})
	res := call(t, ft.ReadFile(), map[string]any{"path": "big.txt"})
	if len(res.Content) > 200 || !strings.Contains(res.Content, "output cap of 100 bytes reached; continue with offset=") {
		t.Errorf("not capped:\n%s", res.Content)
	}
	res = call(t, ft.ReadFile(), map[string]any{"path": "long.txt"})
	if !strings.Contains(res.Content, "[line cut, 50 chars]") {
		t.Errorf("long line not cut:\n%s", res.Content)
	}
}

func TestReadFileRedacts(t *testing.T) {
	dir := t.TempDir()
	ft := New(Options{Workdir: func(string) string { return dir }, Redact: func(s string) string { return strings.ReplaceAll(s, "hunter2", "[REDACTED]") }})
	writeFiles(t, dir, map[string]string{".env": "PASSWORD=hunter2\n"})
	if res := call(t, ft.ReadFile(), map[string]any{"path": ".env"}); strings.Contains(res.Content, "hunter2") {
		t.Errorf("secret shown: %s", res.Content)
	}
}

func TestRelativePathsFollowTheTaskWorkdir(t *testing.T) {
	a, b := t.TempDir(), t.TempDir()
	writeFiles(t, a, map[string]string{"f.txt": "in a\n"})
	writeFiles(t, b, map[string]string{"f.txt": "in b\n"})
	ft := New(Options{Workdir: func(task string) string {
		if task == "task" {
			return b
		}
		return a
	}})
	if res := call(t, ft.ReadFile(), map[string]any{"path": "f.txt"}); !strings.Contains(res.Content, "in b") {
		t.Errorf("read resolved against the wrong directory: %s", res.Content)
	}
	paths, writes := ft.WriteFile().Spec().Paths([]byte(`{"path":"x/y.txt","content":""}`))
	if !writes || len(paths) != 1 || paths[0] != a+"/x/y.txt" {
		t.Errorf("Paths = %v %v", paths, writes)
	}
}
