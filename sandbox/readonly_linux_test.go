package sandbox

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// fileMeta is what a metadata change would alter.
type fileMeta struct {
	mode       os.FileMode
	uid, gid   uint32
	mtime      time.Time
	xattrValue string
}

func metaOf(t *testing.T, path string) fileMeta {
	t.Helper()
	var st unix.Stat_t
	if err := unix.Lstat(path, &st); err != nil {
		t.Fatal(err)
	}
	fi, _ := os.Lstat(path)
	buf := make([]byte, 64)
	n, err := unix.Lgetxattr(path, "user.hermes", buf)
	x := ""
	if err == nil {
		x = string(buf[:n])
	}
	return fileMeta{mode: fi.Mode(), uid: st.Uid, gid: st.Gid, mtime: fi.ModTime(), xattrValue: x}
}

// metadataChanges are ways to change a file's metadata without writing
// it: Landlock does not see them.
var metadataChanges = []struct {
	name, script, needs string
	// same: the change leaves the metadata as it was (it only proves
	// the call is allowed).
	same bool
}{
	{"chmod", `chmod 000 "$1"`, "chmod", false},
	{"chmod -R", `chmod -R a-w "$(dirname "$1")"`, "chmod", false},
	{"chown to oneself", `chown "$(id -u):$(id -g)" "$1"`, "chown", true},
	{"touch -d", `touch -d 2001-02-03 "$1"`, "touch", false},
	{"setxattr", `python3 -c 'import os, sys; os.setxattr(sys.argv[1], "user.hermes", b"set")' "$1"`, "python3", false},
	{"perl chmod", `perl -e 'chmod(0, $ARGV[0]) or die "$!\n"' "$1"`, "perl", false},
}

func TestMetadataOutsideTheWritableRootsIsReadOnly(t *testing.T) {
	for _, c := range metadataChanges {
		t.Run(c.name, func(t *testing.T) {
			if _, err := exec.LookPath(c.needs); err != nil {
				t.Skipf("%s not installed", c.needs)
			}
			b := newBox(t)
			p := b.policy(t, WorkspaceWrite)
			inside := filepath.Join(b.ws, "src", "main.go")
			if err := unix.Lsetxattr(inside, "user.probe", []byte("x"), 0); err != nil && c.needs == "python3" {
				t.Skipf("no user xattrs on this file system: %v", err)
			}
			before := metaOf(t, inside)
			if out, code := b.run(t, p, "", c.script, inside); code != 0 || !c.same && metaOf(t, inside) == before {
				t.Fatalf("the same change in the workspace must work (exit %d):\n%s", code, out)
			}
			for _, victim := range []string{filepath.Join(b.victim, "file"), filepath.Join(b.home, ".bashrc")} {
				before := metaOf(t, victim)
				out, code := b.run(t, p, "", c.script, victim)
				if after := metaOf(t, victim); after != before {
					t.Errorf("%s changed %s: %+v, was %+v\n%s", c.name, victim, after, before, out)
				}
				if code == 0 || !strings.Contains(out, "Read-only file system") {
					t.Errorf("%s of %s: exit %d, want a read-only file system:\n%s", c.name, victim, code, out)
				}
			}
		})
	}
}

func TestOnlyTheWritableRootsAndSideFilesAreWritableMounts(t *testing.T) {
	b := newBox(t)
	p := b.policy(t, WorkspaceWrite)
	side := filepath.Join(b.victim, "file")
	// findmnt is not everywhere: read the mount table the kernel gives.
	cmd := exec.Command("bash", "-c", `while read -r _ _ _ _ point opts _; do echo "$point $opts"; done < /proc/self/mountinfo`)
	if err := p.Wrap(cmd, side); err != nil {
		t.Fatal(err)
	}
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	writable := map[string]bool{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		point, opts, _ := strings.Cut(line, " ")
		if strings.HasPrefix(opts, "rw") {
			writable[point] = true
		}
	}
	for point := range writable {
		_, inRoot := withinAny(point, p.WritableRoots)
		if !inRoot && point != side && point != "/dev/pts" && point != "/dev/ptmx" && !slicesContain(ordinaryDevices, point) {
			t.Errorf("%s is a writable mount outside the writable roots", point)
		}
	}
	for _, must := range append([]string{side}, p.WritableRoots...) {
		if !writable[must] {
			t.Errorf("%s is not a writable mount (mounts: %v)", must, writable)
		}
	}
}

func slicesContain(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func TestOnlyOrdinaryDevicesOpen(t *testing.T) {
	if !Probe().MountNamespace {
		t.Skip("no mount namespace: devices are guarded by Landlock alone")
	}
	var others []string
	for _, d := range []string{"/dev/console", "/dev/tty1", "/dev/ttyS0", "/dev/kmsg", "/dev/vda", "/dev/sda", "/dev/nvme0n1", "/dev/mem", "/dev/loop0"} {
		if st, err := os.Stat(d); err == nil && st.Mode()&os.ModeDevice != 0 {
			others = append(others, d)
		}
	}
	b := newBox(t)
	p := b.policy(t, WorkspaceWrite)
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 not installed")
	}
	// Without blocking on a serial line's carrier or taking a terminal.
	open := `python3 -c '
import os, sys
for d in sys.argv[1:]:
    try:
        os.close(os.open(d, os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY))
        print(d, "opens")
    except OSError as e:
        print(d, "refused:", e.strerror)
' "$@"`
	full := b.policy(t, FullAccess)
	unsandboxed, _ := b.run(t, full, "", open, others...)
	out, code := b.run(t, p, "", `echo x > /dev/null && head -c 4 /dev/zero | wc -c && head -c 4 /dev/urandom | wc -c && `+open, others...)
	if code != 0 || !strings.HasPrefix(out, "4\n4\n") {
		t.Fatalf("the ordinary devices must work (exit %d):\n%s", code, out)
	}
	for _, d := range others {
		if strings.Contains(out, d+" opens") {
			t.Errorf("a command opened %s", d)
		}
		if strings.Contains(unsandboxed, d+" opens") {
			t.Logf("%s opens outside the sandbox", d)
		}
	}
}
