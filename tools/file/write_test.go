package file

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestWriteFileCreatesVerifiesAndReports(t *testing.T) {
	ft, dir := newTools(t)
	res := call(t, ft.WriteFile(), map[string]any{"path": "deep/er/new.txt", "content": "hello\nworld\n"})
	if res.IsError || !strings.Contains(res.Content, "Created") || !strings.Contains(res.Content, "wrote 12 bytes, 2 lines") {
		t.Fatalf("result: %s", res.Content)
	}
	if got := readFile(t, filepath.Join(dir, "deep/er/new.txt")); got != "hello\nworld\n" {
		t.Errorf("on disk: %q", got)
	}
	res = call(t, ft.WriteFile(), map[string]any{"path": "deep/er/new.txt", "content": "hello\nworld\n"})
	if res.IsError || !strings.HasPrefix(res.Content, "No change") {
		t.Errorf("identical write: %s", res.Content)
	}
	os.Chmod(filepath.Join(dir, "deep/er/new.txt"), 0o600)
	res = call(t, ft.WriteFile(), map[string]any{"path": "deep/er/new.txt", "content": ""})
	if res.IsError || !strings.Contains(res.Content, "Overwrote (was 12 bytes)") || !strings.Contains(res.Content, "wrote 0 bytes") {
		t.Errorf("overwrite: %s", res.Content)
	}
	st, _ := os.Stat(filepath.Join(dir, "deep/er/new.txt"))
	if st.Size() != 0 || st.Mode().Perm() != 0o600 {
		t.Errorf("size %d mode %v", st.Size(), st.Mode().Perm())
	}
	entries, _ := os.ReadDir(filepath.Join(dir, "deep/er"))
	if len(entries) != 1 {
		t.Errorf("temporary files left behind: %v", entries)
	}
}

func TestWriteGuardRefusesWrites(t *testing.T) {
	dir := t.TempDir()
	ft := New(Options{Workdir: func(string) string { return dir }, WriteGuard: func(p string) error {
		if strings.HasSuffix(p, ".env") {
			return os.ErrPermission
		}
		return nil
	}})
	res := call(t, ft.WriteFile(), map[string]any{"path": ".env", "content": "X=1"})
	if !res.IsError || !strings.Contains(res.Content, "refused") {
		t.Errorf("guard ignored: %s", res.Content)
	}
	if _, err := os.Stat(filepath.Join(dir, ".env")); err == nil {
		t.Error("file written despite the guard")
	}
}
