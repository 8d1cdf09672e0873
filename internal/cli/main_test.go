package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/hermes-go/hermes/llm/llmtest"
	"github.com/hermes-go/hermes/sandbox"
)

// The test binary is its own sandbox helper, as hermes is.
func TestMain(m *testing.M) {
	sandbox.MaybeRunHelper()
	os.Exit(m.Run())
}

// result is one run of the command line.
type result struct {
	code           int
	stdout, stderr string
}

// hermes runs the command line in-process, as Main does, with HERMES_HOME
// and HOME at home, no provider key and no local server to probe in its
// environment (vars adds to it), stdin as standard input, in a working
// directory of its own.
func hermes(t *testing.T, home, stdin string, vars map[string]string, args ...string) result {
	t.Helper()
	t.Chdir(t.TempDir())
	var stdout, stderr lockedBuffer
	e := &env{stdin: strings.NewReader(stdin), stdout: &stdout, stderr: &stderr, getenv: func(k string) string {
		if v, ok := vars[k]; ok {
			return v
		}
		switch k {
		case "HERMES_HOME", "HOME":
			return home
		case "HERMES_LOCAL_PORTS":
			return "none"
		}
		return ""
	}}
	code := run(args, e)
	return result{code, stdout.String(), stderr.String()}
}

// lockedBuffer is a buffer written from several goroutines, as a
// terminal's stderr is (a chat's prompt, and warnings of work in the
// background such as a session title).
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// endpoint is the flags that put a run on srv.
func endpoint(srv *llmtest.Server) []string {
	return []string{"--provider", "custom", "--base-url", srv.URL(), "--model", "m"}
}

func writeConfig(t *testing.T, home, text string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(home, "config.yaml"), []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// contains reports whether s holds every one of want.
func contains(s string, want ...string) bool {
	for _, w := range want {
		if !strings.Contains(s, w) {
			return false
		}
	}
	return true
}
