package gitignore

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func write(t *testing.T, root string, files map[string]string) {
	t.Helper()
	for rel, data := range files {
		p := filepath.Join(root, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// walkAll returns "rel" or "rel (ignored)" for every entry, in visit order.
func walkAll(t *testing.T, root string, skip ...string) []string {
	t.Helper()
	var got []string
	err := Walk(context.Background(), root, func(e Entry, err error) error {
		if err != nil {
			t.Fatalf("%s: %v", e.Rel, err)
		}
		s := e.Rel
		if e.Ignored {
			s += " (ignored)"
		}
		got = append(got, s)
		if slices.Contains(skip, e.Rel) {
			return fs.SkipDir
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return got
}

func TestWalkReportsIgnoredEntriesBreadthFirstAndSkipsGit(t *testing.T) {
	root := t.TempDir()
	write(t, root, map[string]string{
		".git/HEAD":         "ref: refs/heads/main\n",
		".git/info/exclude": "excluded.txt\n",
		".gitignore":        ".env\nbuild/\n",
		".env":              "K=v\n",
		"excluded.txt":      "x",
		"a/b/deep.txt":      "x",
		"a/kept.txt":        "x",
		"build/out/x.bin":   "x",
		"z.txt":             "x",
	})
	got := walkAll(t, root)
	want := []string{
		".env (ignored)", ".gitignore", "a", "build (ignored)", "excluded.txt (ignored)", "z.txt",
		"a/b", "a/kept.txt",
		"build/out (ignored)",
		"a/b/deep.txt",
		"build/out/x.bin (ignored)",
	}
	if !slices.Equal(got, want) {
		t.Fatalf("visited\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if got := walkAll(t, root, "a", "build"); slices.Contains(got, "a/kept.txt") || slices.Contains(got, "build/out (ignored)") {
		t.Fatalf("SkipDir did not keep the walk out: %q", got)
	}
}

func TestWalkMatchesRulesFromTheRepositoryRoot(t *testing.T) {
	repo := t.TempDir()
	write(t, repo, map[string]string{
		".git/HEAD":         "x",
		".gitignore":        "/build\nsub/anchored\n",
		"sub/build/x":       "x",
		"sub/anchored/x":    "x",
		"sub/.gitignore":    "/local\n",
		"sub/local/x":       "x",
		"sub/other/local/x": "x",
	})
	got := walkAll(t, filepath.Join(repo, "sub"))
	for _, w := range []string{"build", "anchored (ignored)", "local (ignored)", "other/local"} {
		if !slices.Contains(got, w) {
			t.Errorf("missing %q in %q", w, got)
		}
	}
}

func TestWalkStopsAndReportsUnreadableDirectories(t *testing.T) {
	root := t.TempDir()
	write(t, root, map[string]string{"a/x": "x", "b/x": "x", "c/x": "x"})
	var failed []string
	var visited []string
	err := Walk(context.Background(), root, func(e Entry, err error) error {
		if err != nil {
			failed = append(failed, e.Rel)
			return nil
		}
		visited = append(visited, e.Rel)
		if e.Rel == "a" {
			os.RemoveAll(e.Path) // gone before it is read
		}
		if e.Rel == "c/x" {
			return fs.SkipAll
		}
		return nil
	})
	if err != nil || !slices.Equal(failed, []string{"a"}) || visited[len(visited)-1] != "c/x" {
		t.Fatalf("err %v failed %q visited %q", err, failed, visited)
	}

	stop := errors.New("stop")
	if err := Walk(context.Background(), root, func(Entry, error) error { return stop }); err != stop {
		t.Fatalf("fn's error: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := Walk(ctx, root, func(Entry, error) error { return nil }); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled: %v", err)
	}
	err = Walk(context.Background(), filepath.Join(root, "missing"), func(e Entry, err error) error { return err })
	if !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("missing root: %v", err)
	}
}
