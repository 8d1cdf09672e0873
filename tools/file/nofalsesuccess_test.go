package file

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func fileExists(p string) bool {
	_, err := os.Lstat(p)
	return err == nil
}

// TestNoFileToolReportsSuccessForAWriteThatDidNotHappen is the guard
// against the false "success" users reported: whenever the disk does not
// end up holding the requested change, the result is an error, and the
// disk is left as it was.
func TestNoFileToolReportsSuccessForAWriteThatDidNotHappen(t *testing.T) {
	tests := []struct {
		name  string
		tool  string
		args  func(dir string) map[string]any
		check string // the result must mention this
	}{
		{"write under a path whose parent is a file", "write_file", func(d string) map[string]any {
			return map[string]any{"path": "plain.txt/child.txt", "content": "x"}
		}, "failed"},
		{"write onto a directory", "write_file", func(d string) map[string]any {
			return map[string]any{"path": "adir", "content": "x"}
		}, "is a directory"},
		{"write into a read-only location", "write_file", func(d string) map[string]any {
			return map[string]any{"path": "/proc/hermes-no-such/x.txt", "content": "x"}
		}, "failed"},
		{"patch of a missing file", "patch", func(d string) map[string]any {
			return map[string]any{"path": "missing.txt", "old_string": "a", "new_string": "b"}
		}, "does not exist"},
		{"patch whose target is absent", "patch", func(d string) map[string]any {
			return map[string]any{"path": "plain.txt", "old_string": "not here", "new_string": "b"}
		}, "not found"},
		{"patch whose target is ambiguous", "patch", func(d string) map[string]any {
			return map[string]any{"path": "plain.txt", "old_string": "same", "new_string": "b"}
		}, "matches 2 places"},
		{"patch that changes nothing", "patch", func(d string) map[string]any {
			return map[string]any{"path": "plain.txt", "old_string": "same", "new_string": "same", "replace_all": true}
		}, "nothing to change"},
		{"patch of a binary file", "patch", func(d string) map[string]any {
			return map[string]any{"path": "bin.dat", "old_string": "ELF", "new_string": "FLE"}
		}, "binary"},
		{"v4a update of a missing file", "patch", func(d string) map[string]any {
			return map[string]any{"mode": "patch", "patch": "*** Begin Patch\n*** Update File: missing.txt\n-a\n+b\n*** End Patch"}
		}, "does not exist"},
		{"v4a add over an existing file", "patch", func(d string) map[string]any {
			return map[string]any{"mode": "patch", "patch": "*** Begin Patch\n*** Add File: plain.txt\n+new\n*** End Patch"}
		}, "already exists"},
		{"v4a delete of a missing file", "patch", func(d string) map[string]any {
			return map[string]any{"mode": "patch", "patch": "*** Begin Patch\n*** Delete File: missing.txt\n*** End Patch"}
		}, "no such file"},
		{"v4a hunk that changes nothing", "patch", func(d string) map[string]any {
			return map[string]any{"mode": "patch", "patch": "*** Begin Patch\n*** Update File: plain.txt\n same\n same\n*** End Patch"}
		}, "change nothing"},
		{"v4a into a read-only location", "patch", func(d string) map[string]any {
			return map[string]any{"mode": "patch", "patch": "*** Begin Patch\n*** Add File: /proc/hermes-no-such/x\n+x\n*** End Patch"}
		}, "failed"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ft, dir := newTools(t)
			writeFiles(t, dir, map[string]string{"plain.txt": "same\nsame\n", "bin.dat": "\x7fELF\x00\x00"})
			os.Mkdir(filepath.Join(dir, "adir"), 0o755)
			before := snapshot(t, dir)
			tl := ft.Patch()
			if tc.tool == "write_file" {
				tl = ft.WriteFile()
			}
			res := call(t, tl, tc.args(dir))
			if !res.IsError {
				t.Fatalf("reported success: %s", res.Content)
			}
			if !strings.Contains(strings.ToLower(res.Content), strings.ToLower(tc.check)) {
				t.Errorf("result lacks %q: %s", tc.check, res.Content)
			}
			if after := snapshot(t, dir); after != before {
				t.Errorf("the disk changed although the tool failed:\nbefore %s\nafter  %s", before, after)
			}
		})
	}
}

func snapshot(t *testing.T, dir string) string {
	t.Helper()
	var b strings.Builder
	filepath.Walk(dir, func(p string, info os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		b.WriteString(rel)
		if !info.IsDir() {
			data, _ := os.ReadFile(p)
			b.WriteString("=" + string(data))
		}
		b.WriteString(";")
		return nil
	})
	return b.String()
}
