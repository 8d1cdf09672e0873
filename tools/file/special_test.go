//go:build linux

package file

import (
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// specials makes a FIFO, a socket and (when allowed) a character device
// like /dev/null in dir.
func specials(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	fifo := filepath.Join(dir, "pipe")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	out["FIFO"] = fifo
	sock := filepath.Join(dir, "sock")
	l, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	out["socket"] = sock
	null := filepath.Join(dir, "null")
	if err := syscall.Mknod(null, syscall.S_IFCHR|0o666, 1<<8|3); err == nil { // 1:3 is /dev/null
		out["character device"] = null
	}
	return out
}

func TestFileToolsRefuseDevicesFIFOsAndSockets(t *testing.T) {
	tl, dir := newTools(t)
	for kind, path := range specials(t, dir) {
		before, err := os.Lstat(path)
		if err != nil {
			t.Fatal(err)
		}
		for name, args := range map[string]map[string]any{
			"read_file":     map[string]any{"path": path},
			"write_file":    map[string]any{"path": path, "content": "replaced"},
			"patch replace": map[string]any{"path": path, "old_string": "x", "new_string": "y"},
			"patch update":  map[string]any{"mode": "patch", "patch": "*** Begin Patch\n*** Update File: " + path + "\n@@\n-x\n+y\n*** End Patch"},
			"patch delete":  map[string]any{"mode": "patch", "patch": "*** Begin Patch\n*** Delete File: " + path + "\n*** End Patch"},
		} {
			tool := tl.ReadFile()
			switch {
			case name == "write_file":
				tool = tl.WriteFile()
			case strings.HasPrefix(name, "patch"):
				tool = tl.Patch()
			}
			res := call(t, tool, args)
			if !res.IsError || !strings.Contains(res.Content, kind) {
				t.Errorf("%s on a %s: %+v, want a refusal naming it", name, kind, res)
			}
			after, err := os.Lstat(path)
			if err != nil || after.Mode() != before.Mode() || !os.SameFile(before, after) {
				t.Errorf("%s replaced the %s at %s (now %v, %v)", name, kind, path, after, err)
			}
		}
	}
}

func TestWriteFileWritesThroughALinkAndKeepsIt(t *testing.T) {
	tl, dir := newTools(t)
	writeFiles(t, dir, map[string]string{"real.txt": "old\n"})
	link := filepath.Join(dir, "link.txt")
	if err := os.Symlink("real.txt", link); err != nil {
		t.Fatal(err)
	}
	if res := call(t, tl.WriteFile(), map[string]any{"path": link, "content": "new\n"}); res.IsError {
		t.Fatal(res.Content)
	}
	if st, err := os.Lstat(link); err != nil || st.Mode()&fs.ModeSymlink == 0 {
		t.Fatalf("the link was replaced: %v %v", st, err)
	}
	if got := readFile(t, filepath.Join(dir, "real.txt")); got != "new\n" {
		t.Fatalf("the linked file holds %q", got)
	}
}

func TestSearchSkipsFIFOsEvenThroughLinks(t *testing.T) {
	tl, dir := newTools(t)
	writeFiles(t, dir, map[string]string{"a.txt": "needle\n"})
	fifo := filepath.Join(dir, "pipe")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("pipe", filepath.Join(dir, "pipe-link")); err != nil {
		t.Fatal(err)
	}
	res := call(t, tl.SearchFiles(), map[string]any{"pattern": "needle", "path": dir})
	if res.IsError || !strings.Contains(res.Content, "a.txt") {
		t.Fatalf("search: %+v", res)
	}
}
