package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

var hermesBin string

// moduleRoot is the directory holding go.mod.
var moduleRoot string

func TestMain(m *testing.M) {
	if model := os.Getenv(relayEnv); model != "" {
		runRelay(model)
	}
	dir, err := os.MkdirTemp("", "hermes-e2e")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	hermesBin = filepath.Join(dir, "hermes")
	_, file, _, _ := runtime.Caller(0)
	moduleRoot = filepath.Join(filepath.Dir(file), "..", "..")
	// Built the way the README builds it.
	build := exec.Command("go", "build", "-ldflags=-s -w", "-o", hermesBin, "./cmd/hermes")
	build.Dir = moduleRoot
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	build.Stderr = os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "building hermes:", err)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// result is one run of the binary.
type result struct {
	stdout, stderr string
	code           int
}

// hermes runs the binary with a fresh HERMES_HOME, no provider keys in
// the environment and no local server to probe, in workdir.
func hermes(t *testing.T, home, workdir string, args ...string) result {
	t.Helper()
	return hermesEnv(t, nil, home, workdir, args...)
}

// hermesEnv is hermes with more environment variables ("K=V"), which win
// over its own.
func hermesEnv(t *testing.T, env []string, home, workdir string, args ...string) result {
	t.Helper()
	return hermesRun(t, env, "", home, workdir, args...)
}

// hermesIn is hermes with stdin as standard input (not a terminal).
func hermesIn(t *testing.T, stdin, home, workdir string, args ...string) result {
	t.Helper()
	return hermesRun(t, nil, stdin, home, workdir, args...)
}

func hermesRun(t *testing.T, env []string, stdin, home, workdir string, args ...string) result {
	t.Helper()
	cmd := exec.Command(hermesBin, args...)
	cmd.Dir = workdir
	cmd.Stdin = strings.NewReader(stdin)
	cmd.Env = append([]string{"HOME=" + home, "HERMES_HOME=" + home, "PATH=" + os.Getenv("PATH"), "HERMES_LOCAL_PORTS=none"}, env...)
	return run(t, cmd)
}

// run runs cmd to its end and returns what it printed and its status.
func run(t *testing.T, cmd *exec.Cmd) result {
	t.Helper()
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return result{out.String(), errb.String(), code}
}

func readUsage(t *testing.T, path string) map[string]any {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("usage file: %v", err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("usage file: %v: %s", err, b)
	}
	return m
}

func contains(s string, subs ...string) bool {
	for _, x := range subs {
		if !strings.Contains(s, x) {
			return false
		}
	}
	return true
}
