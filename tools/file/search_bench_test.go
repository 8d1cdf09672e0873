package file

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/hermes-go/hermes/tool"
)

// benchTree builds (once, cached across runs in the temp directory) a tree
// of 100,000 small text files: 100 x 10 directories of 100 files, one file
// in a hundred holding the needle.
var benchTree = sync.OnceValues(func() (string, error) {
	root := filepath.Join(os.TempDir(), "hermes-bench-search-100k-v1")
	if _, err := os.Stat(filepath.Join(root, ".complete")); err == nil {
		return root, nil
	}
	os.RemoveAll(root)
	body := strings.Repeat("the quick brown fox jumps over the lazy dog 0123456789\n", 8)
	n := 0
	for a := 0; a < 100; a++ {
		for b := 0; b < 10; b++ {
			dir := filepath.Join(root, fmt.Sprintf("pkg%03d", a), fmt.Sprintf("sub%d", b))
			if err := os.MkdirAll(dir, 0o755); err != nil {
				return "", err
			}
			for c := 0; c < 100; c++ {
				text := body
				if n%100 == 7 {
					text += fmt.Sprintf("var x = hermes_needle_%d\n", n)
				}
				if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("file%03d.txt", c)), []byte(text), 0o644); err != nil {
					return "", err
				}
				n++
			}
		}
	}
	return root, os.WriteFile(filepath.Join(root, ".complete"), nil, 0o644)
})

const benchPattern = `hermes_needle_[0-9]+`

func BenchmarkSearchFiles100k(b *testing.B) {
	root, err := benchTree()
	if err != nil {
		b.Fatal(err)
	}
	ft := New(Options{Workdir: func(string) string { return root }})
	args, _ := json.Marshal(map[string]any{"pattern": benchPattern, "limit": 100})
	st := ft.SearchFiles()
	b.ResetTimer()
	for b.Loop() {
		res, err := st.Run(context.Background(), tool.Call{Args: args})
		if err != nil || res.IsError || !strings.Contains(res.Content, "[showing 100 of 1000 matches") {
			b.Fatalf("unexpected result: %v %.300s", err, res.Content)
		}
	}
}

// BenchmarkGrep100k runs grep -rnE over the same tree for comparison.
func BenchmarkGrep100k(b *testing.B) {
	root, err := benchTree()
	if err != nil {
		b.Fatal(err)
	}
	if _, err := exec.LookPath("grep"); err != nil {
		b.Skip("grep not installed")
	}
	b.ResetTimer()
	for b.Loop() {
		out, err := exec.Command("grep", "-rnE", benchPattern, root).Output()
		if err != nil || strings.Count(string(out), "\n") != 1000 {
			b.Fatalf("grep: %v (%d lines)", err, strings.Count(string(out), "\n"))
		}
	}
}
