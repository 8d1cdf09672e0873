package docker

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// writeVia writes content to p the way the file tools do: a temporary
// file in its directory, renamed over it.
func writeVia(t *testing.T, b *Backend, p, content string) {
	t.Helper()
	f := b.FS()
	if err := f.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	tmp, err := f.CreateTemp(filepath.Dir(p), "."+filepath.Base(p)+".tmp-*")
	if err != nil {
		t.Fatal(err)
	}
	io.WriteString(tmp, content)
	if err := tmp.Close(); err != nil {
		t.Fatal(err)
	}
	if err := f.Rename(tmp.Name(), p); err != nil {
		t.Fatal(err)
	}
}

func readVia(t *testing.T, b *Backend, p string) string {
	t.Helper()
	f, err := b.FS().Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	data, err := io.ReadAll(f)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

func TestFilesInTheWorkspaceGoThroughTheBindMount(t *testing.T) {
	r := newRig(t, "docker", nil)
	p := filepath.Join(r.ws, "dir", "a.txt")
	writeVia(t, r.b, p, "hello")
	if got := readVia(t, r.b, p); got != "hello" {
		t.Errorf("read %q", got)
	}
	if b, _ := os.ReadFile(p); string(b) != "hello" {
		t.Errorf("on this machine: %q", b)
	}
	if calls := r.calls(); len(calls) != 0 {
		t.Errorf("the workspace's files went through the CLI: %v", calls)
	}
}

func TestFilesOutsideTheWorkspaceGoThroughExecWithPathsAsArguments(t *testing.T) {
	r := newRig(t, "docker", nil)
	r.run(r.b, "s", "", "true")
	// The fake's container is this machine: "outside" is another
	// directory here. The name would run a command if it reached a
	// shell command line.
	outside := resolved(t, t.TempDir())
	evil := filepath.Join(outside, "$(touch pwned); x `touch pwned2`.txt")
	writeVia(t, r.b, evil, "content\n")
	if got := readVia(t, r.b, evil); got != "content\n" {
		t.Errorf("read %q", got)
	}
	if b, err := os.ReadFile(evil); err != nil || string(b) != "content\n" {
		t.Errorf("file %q: %v", b, err)
	}
	for _, f := range []string{"pwned", "pwned2"} {
		for _, d := range []string{outside, r.ws, "/"} {
			if _, err := os.Stat(filepath.Join(d, f)); err == nil {
				t.Errorf("the file name ran a command: %s exists", filepath.Join(d, f))
			}
		}
	}
	var catSeen bool
	for _, c := range r.callsOf("exec") {
		if i := slices.Index(c, "cat"); i >= 0 && slices.Contains(c, evil) {
			catSeen = true
		}
		if i := slices.Index(c, "-c"); i >= 0 && strings.Contains(c[i+1], "touch pwned") {
			t.Errorf("the path was embedded in the script of %v", c)
		}
	}
	if !catSeen {
		t.Error("no exec cat of the file")
	}

	st, err := r.b.FS().Stat(evil)
	if err != nil || st.Size() != 8 || !st.Mode().IsRegular() || st.Name() != filepath.Base(evil) {
		t.Errorf("stat %+v, %v", st, err)
	}
	ents, err := r.b.FS().ReadDir(outside)
	if err != nil || len(ents) != 1 || ents[0].Name() != filepath.Base(evil) {
		t.Errorf("readdir %v, %v", ents, err)
	}
	if _, err := r.b.FS().Stat(filepath.Join(outside, "missing")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("stat of a missing file: %v, want fs.ErrNotExist", err)
	}
	if err := r.b.FS().Remove(evil); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(evil); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("after Remove: %v", err)
	}
}

func TestALinkOutOfTheWorkspaceIsFollowedInTheContainer(t *testing.T) {
	r := newRig(t, "docker", nil)
	r.run(r.b, "s", "", "true")
	outside := resolved(t, t.TempDir())
	os.WriteFile(filepath.Join(outside, "f"), []byte("x"), 0o644)
	link := filepath.Join(r.ws, "link")
	os.Symlink(filepath.Join(outside, "f"), link)
	before := len(r.callsOf("exec"))
	if got := readVia(t, r.b, link); got != "x" {
		t.Errorf("read %q", got)
	}
	if len(r.callsOf("exec")) == before {
		t.Error("a link out of the workspace was read on this machine, not in the container")
	}
}

func TestHomeIsTheContainerUsers(t *testing.T) {
	r := newRig(t, "docker", nil)
	if h := r.b.FS().Home(); h != "/root" {
		t.Errorf("home %q, want the container's /root", h)
	}
}

// A file read outside the workspace before any command uses the
// container of the conversation that opened, not one of its own.
func TestFilesBeforeAnyCommandUseTheOpenConversationsContainer(t *testing.T) {
	r := newRig(t, "docker", nil)
	r.b.UseSession("s1")
	outside := resolved(t, t.TempDir())
	os.WriteFile(filepath.Join(outside, "f"), []byte("x"), 0o644)
	readVia(t, r.b, filepath.Join(outside, "f"))
	r.run(r.b, "s1", "", "true")
	cs := r.containers()
	if len(cs) != 1 || cs[0].Labels[LabelSession] != "s1" {
		t.Errorf("containers %+v, want s1's alone", cs)
	}
}
