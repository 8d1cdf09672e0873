package sandbox

import (
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// listen serves a pathname socket at path that greets whoever connects.
func listen(t *testing.T, path string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Write([]byte("REACHED-OUTSIDE\n"))
			c.Close()
		}
	}()
}

// A command cannot connect to the sockets other programs keep in the
// temporary directories: the user's tmux server (whose send-keys would
// type into their terminal outside the sandbox), an ssh-agent, any
// daemon's socket there. The project's own sockets in the workspace stay
// reachable.
func TestACommandReachesNoSocketOfTheTemporaryDirectories(t *testing.T) {
	b := newBox(t)
	outside := map[string]string{
		"tmux server":  filepath.Join(b.scratch, "tmux-0", "default"),
		"ssh-agent":    filepath.Join(b.scratch, "ssh-XYZ", "agent.42"),
		"a daemon's":   filepath.Join(b.scratch, "app.sock"),
		"one dir down": filepath.Join(b.scratch, "svc", "s.sock"),
	}
	for _, path := range outside {
		listen(t, path)
	}
	inside := filepath.Join(b.ws, "dev.sock")
	listen(t, inside)
	connect := `python3 -c 'import socket,sys; s=socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); print(s.recv(100).decode())' `
	for _, mode := range []Mode{WorkspaceWrite, ReadOnly} {
		p := b.policy(t, mode)
		for name, path := range outside {
			if out, _ := b.run(t, p, "", connect+path); strings.Contains(out, "REACHED-OUTSIDE") {
				t.Errorf("%s: a command reached %s socket %s", mode, name, path)
			}
		}
		if mode == WorkspaceWrite {
			if out, code := b.run(t, p, "", connect+inside); code != 0 || !strings.Contains(out, "REACHED-OUTSIDE") {
				t.Errorf("the workspace's own socket is unreachable (%d): %s", code, out)
			}
		}
	}
}

// The temporary directories' listings are kept between workspaces; a
// socket that appears after one workspace's policy, in the scratch
// directory or one directory down, is hidden in the next one's, also when
// the listing of its directory was kept.
func TestASocketThatAppearsLaterIsHiddenFromTheNextWorkspace(t *testing.T) {
	scratch := Resolve(t.TempDir())
	sub := filepath.Join(scratch, "app")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	// Old enough for their listings to be kept.
	old := time.Now().Add(-time.Hour)
	for _, d := range []string{sub, scratch} {
		if err := os.Chtimes(d, old, old); err != nil {
			t.Fatal(err)
		}
	}
	policy := func() Policy {
		p, err := NewPolicy(Options{Workdir: t.TempDir(), Scratch: []string{scratch}})
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	first := policy()
	for _, s := range []string{filepath.Join(sub, "a.sock"), filepath.Join(scratch, "b.sock")} {
		if slices.Contains(first.Hidden, s) {
			t.Fatalf("%s is hidden before it exists", s)
		}
		listen(t, s)
	}
	second := policy()
	for _, s := range []string{filepath.Join(sub, "a.sock"), filepath.Join(scratch, "b.sock")} {
		if !slices.Contains(second.Hidden, s) {
			t.Errorf("%s, made after the first workspace, is not hidden from the second: %v", s, second.Hidden)
		}
	}
}

// A listing read while its directory's modification time is recent is
// not kept: a change in the same clock tick leaves the time as it was,
// and the next workspace must read the directory again.
func TestAListingOfARecentlyChangedDirectoryIsNotKept(t *testing.T) {
	scratch := Resolve(t.TempDir())
	sub := filepath.Join(scratch, "app")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	// Recent (ahead of the clock, so however slow this machine is): too
	// recent to keep.
	tick := time.Now().Add(10 * time.Second)
	if err := os.Chtimes(sub, tick, tick); err != nil {
		t.Fatal(err)
	}
	if _, err := listDir(sub); err != nil {
		t.Fatal(err)
	}
	sock := filepath.Join(sub, "a.sock")
	listen(t, sock)
	if err := os.Chtimes(sub, tick, tick); err != nil { // the same tick
		t.Fatal(err)
	}
	p, err := NewPolicy(Options{Workdir: t.TempDir(), Scratch: []string{scratch}})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(p.Hidden, sock) {
		t.Errorf("a socket made in the tick of the last listing is not hidden: %v", p.Hidden)
	}
}
