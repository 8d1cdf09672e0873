package file

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/hermes-go/hermes/tool"
)

// newTools returns the file tools rooted at a fresh directory.
func newTools(t *testing.T) (*Tools, string) {
	t.Helper()
	dir := t.TempDir()
	return New(Options{Workdir: func(string) string { return dir }}), dir
}

func call(t *testing.T, tl tool.Tool, args any) tool.Result {
	t.Helper()
	b, err := json.Marshal(args)
	if err != nil {
		t.Fatal(err)
	}
	res, err := tl.Run(context.Background(), tool.Call{ID: "1", Name: tl.Spec().Name, Args: b, TaskID: "task"})
	if err != nil {
		t.Fatalf("%s returned a Go error: %v", tl.Spec().Name, err)
	}
	return res
}

func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, body := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func readFile(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
