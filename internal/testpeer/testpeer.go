// Package testpeer finds the real programs some tests talk to: npm
// packages (MCP servers, ACP and OpenAI clients) and the Temporal dev
// server. `.ci/run` installs them; this package only looks.
//
// A test asks for a peer by name. When the peer is missing, the test is
// skipped with the command that installs it, unless HERMES_TEST_PEERS is
// "require" (as `.ci/run` sets it): then a missing peer fails the test,
// so CI can never pass by skipping.
package testpeer

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"
)

// Root is the repository's root directory.
func Root() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Clean(filepath.Join(filepath.Dir(file), "..", ".."))
}

// Node returns the node_modules directory of the npm peer set name
// (testdata/peers/NAME, installed there by `.ci/run`), and the node
// binary to run its scripts with.
func Node(t testing.TB, name string) (nodeModules, node string) {
	t.Helper()
	dir := filepath.Join(Root(), "testdata", "peers", name)
	nodeModules = filepath.Join(dir, "node_modules")
	if _, err := os.Stat(nodeModules); err != nil {
		missing(t, "npm peers "+name, "npm ci --prefix "+dir+"   (or run .ci/run)")
	}
	node, err := exec.LookPath("node")
	if err != nil {
		missing(t, "node", "install Node.js 20 or newer")
	}
	return nodeModules, node
}

// Temporal returns the path of the Temporal CLI (its dev server), from
// $HERMES_PEERS_CACHE/bin (default ~/.cache/hermes-peers/bin) or PATH.
func Temporal(t testing.TB) string {
	t.Helper()
	p := filepath.Join(CacheDir(), "bin", "temporal")
	if _, err := os.Stat(p); err == nil {
		return p
	}
	if p, err := exec.LookPath("temporal"); err == nil {
		return p
	}
	missing(t, "the Temporal CLI", "GOBIN="+filepath.Join(CacheDir(), "bin")+" GOFLAGS=-modcacherw go install github.com/temporalio/cli/cmd/temporal@v1.5.1   (or run .ci/run)")
	return ""
}

// CacheDir is where `.ci/run` keeps peers that outlive a clone.
func CacheDir() string {
	if d := os.Getenv("HERMES_PEERS_CACHE"); d != "" {
		return d
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return filepath.Join(os.TempDir(), "hermes-peers")
	}
	return filepath.Join(home, ".cache", "hermes-peers")
}

func missing(t testing.TB, what, install string) {
	t.Helper()
	if os.Getenv("HERMES_TEST_PEERS") == "require" {
		t.Fatalf("%s not installed; install with: %s", what, install)
	}
	t.Skipf("%s not installed (HERMES_TEST_PEERS=require makes this a failure); install with: %s", what, install)
}

// Chromium returns the path of the system's Chromium or Chrome (Debian's
// chromium package; `.ci/run` installs it), or CHROME_PATH.
func Chromium(t testing.TB) string {
	t.Helper()
	if p := os.Getenv("CHROME_PATH"); p != "" {
		return p
	}
	for _, n := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(n); err == nil {
			return p
		}
	}
	missing(t, "Chromium", "apt-get install chromium   (or run .ci/run)")
	return ""
}
