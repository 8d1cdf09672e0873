package browser

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// A profile left behind by a hermes that was killed (its process gone) is
// removed when the next browser starts; a live process's profile, a link
// and other directories are left alone.
func TestNewProfileSweepsThoseOfDeadProcesses(t *testing.T) {
	tmp := t.TempDir()
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Fatal(err)
	}
	mk := func(name string) string {
		p := filepath.Join(tmp, name)
		if err := os.MkdirAll(filepath.Join(p, "Default"), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(p, "Default", "Cookies"), []byte("c"), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	orphan := mk(fmt.Sprintf("hermes-browser-%d-123", dead.Process.Pid))
	live := mk(fmt.Sprintf("hermes-browser-%d-456", os.Getppid()))
	other := mk("hermes-browser-notapid")
	target := mk("elsewhere")
	link := filepath.Join(tmp, fmt.Sprintf("hermes-browser-%d-789", dead.Process.Pid))
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}

	p, err := newProfile(tmp)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(filepath.Base(p), fmt.Sprintf("hermes-browser-%d-", os.Getpid())) {
		t.Fatalf("profile %s is not named for this process", p)
	}
	if _, err := os.Stat(orphan); !os.IsNotExist(err) {
		t.Errorf("the dead process's profile is still there: %v", err)
	}
	for _, kept := range []string{live, other, link, filepath.Join(target, "Default", "Cookies")} {
		if _, err := os.Lstat(kept); err != nil {
			t.Errorf("%s was removed: %v", kept, err)
		}
	}
}
