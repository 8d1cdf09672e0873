package file

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestSearchFiles(t *testing.T) {
	ft, dir := newTools(t)
	writeFiles(t, dir, map[string]string{
		".git/config":       "needle in git dir\n",
		".gitignore":        "*.log\nbuild/\n/root-only.txt\n!keep.log\ndocs/**/gen.md\n",
		"main.go":           "package main\n// needle one\nfunc main() { needle() }\n",
		"pkg/util.go":       "package pkg\nvar Needle = 1\n",
		"pkg/root-only.txt": "needle: not anchored here\n",
		"root-only.txt":     "needle: ignored at the root\n",
		"debug.log":         "needle in a log\n",
		"keep.log":          "needle kept by negation\n",
		"build/out.txt":     "needle in build\n",
		"docs/a/b/gen.md":   "needle generated\n",
		"docs/a/b/hand.md":  "needle by hand\n",
		"image.png":         "\x89PNG\x00\x00needle",
		"sub/.gitignore":    "secret.txt\n",
		"sub/secret.txt":    "needle secret\n",
		"sub/open.txt":      "needle open\n",
	})
	tests := []struct {
		name    string
		args    map[string]any
		want    []string
		notWant []string
	}{
		{"content regex with line numbers", map[string]any{"pattern": "needle"}, []string{
			"main.go:2:// needle one", "main.go:3:func main() { needle() }", "pkg/root-only.txt:1:", "keep.log:1:", "docs/a/b/hand.md:1:", "sub/open.txt:1:",
		}, []string{".git", "debug.log", "build/", "gen.md", "image.png", "secret.txt", "\nroot-only.txt"}},
		{"case-insensitive flag", map[string]any{"pattern": "(?i)NEEDLE = 1"}, []string{"pkg/util.go:2:var Needle = 1"}, nil},
		{"file_glob filter", map[string]any{"pattern": "needle", "file_glob": "*.go"}, []string{"main.go:2:"}, []string{".txt", ".log"}},
		{"path restricts the root", map[string]any{"pattern": "needle", "path": "sub"}, []string{"sub/open.txt:1:"}, []string{"main.go", "secret"}},
		{"files by glob", map[string]any{"pattern": "*.go", "target": "files"}, []string{"main.go\n", "pkg/util.go\n"}, []string{"hand.md"}},
		{"files by path glob", map[string]any{"pattern": "docs/**/*.md", "target": "files"}, []string{"docs/a/b/hand.md"}, []string{"gen.md", "main.go"}},
		{"files_with_matches", map[string]any{"pattern": "needle", "output_mode": "files_with_matches", "file_glob": "*.go"}, []string{"main.go\n"}, []string{":2:"}},
		{"count", map[string]any{"pattern": "needle", "output_mode": "count", "file_glob": "main.go"}, []string{"main.go:2\n"}, nil},
		{"no matches", map[string]any{"pattern": "zzz_absent"}, []string{"No matches"}, nil},
		{"single file", map[string]any{"pattern": "Needle", "path": "pkg/util.go"}, []string{"pkg/util.go:2:"}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := call(t, ft.SearchFiles(), tc.args)
			if res.IsError {
				t.Fatalf("error: %s", res.Content)
			}
			out := "\n" + res.Content
			for _, w := range tc.want {
				if !strings.Contains(out, w) {
					t.Errorf("missing %q in:\n%s", w, res.Content)
				}
			}
			for _, w := range tc.notWant {
				if strings.Contains(out, w) {
					t.Errorf("unexpected %q in:\n%s", w, res.Content)
				}
			}
		})
	}
}

func TestSearchFilesCapsAndSortsResults(t *testing.T) {
	ft, dir := newTools(t)
	files := map[string]string{}
	for i := 0; i < 30; i++ {
		files[fmt.Sprintf("d%d/f%02d.txt", i%3, i)] = "hit\nhit\n"
	}
	writeFiles(t, dir, files)
	res := call(t, ft.SearchFiles(), map[string]any{"pattern": "hit", "limit": 5})
	lines := strings.Split(strings.TrimSpace(res.Content), "\n")
	want := []string{"d0/f00.txt:1:hit", "d0/f00.txt:2:hit", "d0/f03.txt:1:hit", "d0/f03.txt:2:hit", "d0/f06.txt:1:hit", "[showing 5 of 60 matches; narrow the pattern or path, or raise limit]"}
	if strings.Join(lines, "\n") != strings.Join(want, "\n") {
		t.Errorf("got:\n%s\nwant:\n%s", res.Content, strings.Join(want, "\n"))
	}
}

func TestSearchFilesErrors(t *testing.T) {
	ft, _ := newTools(t)
	for name, args := range map[string]map[string]any{
		"bad regexp":   {"pattern": "a("},
		"missing path": {"pattern": "a", "path": "nope"},
		"bad target":   {"pattern": "a", "target": "both"},
	} {
		t.Run(name, func(t *testing.T) {
			if res := call(t, ft.SearchFiles(), args); !res.IsError {
				t.Errorf("want error: %s", res.Content)
			}
		})
	}
}

func TestSearchFilesAppliesAncestorGitignore(t *testing.T) {
	ft, dir := newTools(t)
	writeFiles(t, dir, map[string]string{".git/HEAD": "ref", ".gitignore": "vendor/\n", "app/vendor/x.go": "needle\n", "app/y.go": "needle\n"})
	res := call(t, ft.SearchFiles(), map[string]any{"pattern": "needle", "path": filepath.Join(dir, "app")})
	if strings.Contains(res.Content, "vendor") || !strings.Contains(res.Content, "app/y.go:1:") {
		t.Errorf("ancestor .gitignore not applied:\n%s", res.Content)
	}
}

func TestSearchFilesSkipsUnreadableQuietlyButSaysSo(t *testing.T) {
	ft, dir := newTools(t)
	writeFiles(t, dir, map[string]string{"ok.txt": "needle\n"})
	os.Symlink(filepath.Join(dir, "nowhere"), filepath.Join(dir, "dangling"))
	res := call(t, ft.SearchFiles(), map[string]any{"pattern": "needle"})
	if res.IsError || !strings.Contains(res.Content, "ok.txt:1:needle") {
		t.Errorf("%s", res.Content)
	}
}
