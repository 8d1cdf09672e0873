//go:build linux

package session

import (
	"bytes"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestOpenInReadOnlyLocationFailsClearly checks both a new database in a
// directory that cannot be written and an existing database that cannot
// be written. Permission bits do not bind root, so as root the checks run
// in a child process (this test binary) under the "nobody" user.
func TestOpenInReadOnlyLocationFailsClearly(t *testing.T) {
	if dir := os.Getenv("HERMES_SESSION_TEST_RO"); dir != "" {
		checkReadOnly(t, dir)
		return
	}
	base := t.TempDir()
	for d := base; d != filepath.Dir(d) && strings.HasPrefix(d, os.TempDir()+"/"); d = filepath.Dir(d) {
		os.Chmod(d, 0o755) // let the child walk into the test directory
	}
	existing := filepath.Join(base, "existing")
	s, err := Open(filepath.Join(existing, "state.db"))
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	for _, f := range []string{"state.db", "state.db-wal", "state.db-shm"} {
		os.Chmod(filepath.Join(existing, f), 0o444)
	}
	if err := os.Chmod(existing, 0o555); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(base, "empty"), 0o555); err != nil {
		t.Fatal(err)
	}
	os.Chmod(filepath.Join(base, "empty"), 0o555)
	t.Cleanup(func() { os.Chmod(existing, 0o755); os.Chmod(filepath.Join(base, "empty"), 0o755) })

	if os.Geteuid() != 0 {
		checkReadOnly(t, base)
		return
	}
	bin := filepath.Join(base, "session.test")
	if err := copyFile(bin, os.Args[0]); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "-test.run=^TestOpenInReadOnlyLocationFailsClearly$", "-test.v")
	cmd.Env = append(os.Environ(), "HERMES_SESSION_TEST_RO="+base)
	cmd.Dir = base
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	out, err := cmd.CombinedOutput()
	if err != nil || !bytes.Contains(out, []byte("--- PASS")) {
		t.Fatalf("child as nobody: %v\n%s", err, out)
	}
}

func checkReadOnly(t *testing.T, base string) {
	existing := filepath.Join(base, "existing", "state.db")
	before, err := os.ReadFile(existing)
	if err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{
		filepath.Join(base, "empty", "state.db"),        // cannot create the file
		filepath.Join(base, "empty", "sub", "state.db"), // cannot create the directory
		existing, // cannot write the file
	} {
		s, err := Open(path)
		if err == nil {
			s.Close()
			t.Errorf("Open(%s) succeeded in a read-only location", path)
			continue
		}
		if !errors.Is(err, ErrReadOnly) || !strings.Contains(err.Error(), path) {
			t.Errorf("Open(%s) err = %v, want ErrReadOnly naming the file", path, err)
		}
	}
	after, _ := os.ReadFile(existing)
	if !bytes.Equal(before, after) {
		t.Error("the read-only database changed")
	}
}

func copyFile(dst, src string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o755)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
