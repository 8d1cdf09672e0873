// Package dockertest is a fake docker CLI for tests of the docker backend:
// a small program that records its arguments and answers like the CLI,
// running exec'd commands on this machine so that their results are
// real. Install puts it in a directory under the name docker (or podman);
// put that directory first on PATH, or name the binary in the config.
package dockertest

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
)

var (
	buildOnce sync.Once
	built     string
	buildErr  error
	buildOut  []byte
)

// Install builds the fake (once per test process) and copies it into dir
// as name; it returns its path. The fake keeps its containers and its
// log in dir.
func Install(t testing.TB, dir, name string) string {
	t.Helper()
	buildOnce.Do(func() { built, buildOut, buildErr = build() })
	if buildErr != nil {
		t.Fatalf("building the fake docker: %v\n%s", buildErr, buildOut)
	}
	dst := filepath.Join(dir, name)
	if err := copyFile(built, dst); err != nil {
		t.Fatal(err)
	}
	return dst
}

// build compiles the fake into the user's cache directory (one path,
// reused by later runs, so that no run leaves a copy behind), through a
// temporary name renamed into place: test processes building at once do
// not see each other's half-written file.
func build() (path string, out []byte, err error) {
	cache, err := os.UserCacheDir()
	if err != nil {
		cache = os.TempDir()
	}
	dir := filepath.Join(cache, "hermes-test")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", nil, err
	}
	tmp, err := os.CreateTemp(dir, "fakedocker-*")
	if err != nil {
		return "", nil, err
	}
	tmp.Close()
	defer os.Remove(tmp.Name())
	_, file, _, _ := runtime.Caller(0)
	cmd := exec.Command("go", "build", "-o", tmp.Name(), "./fakedocker")
	cmd.Dir = filepath.Dir(file)
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err = cmd.CombinedOutput(); err != nil {
		return "", out, err
	}
	path = filepath.Join(dir, "fakedocker")
	return path, nil, os.Rename(tmp.Name(), path)
}

func copyFile(src, dst string) error {
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
