package mcptest

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"

	"github.com/hermes-go/hermes/internal/testpeer"
)

var (
	binaryOnce sync.Once
	binaryPath string
	binaryErr  error
)

// Binary builds internal/mcptest/mcptest-server, the test server as a
// small program of its own, once per test process, and returns its path.
// Benchmarks use it where the test binary itself would start too slowly.
func Binary(tb testing.TB) string {
	tb.Helper()
	binaryOnce.Do(func() {
		dir, err := os.MkdirTemp("", "hermes-mcptest-")
		if err != nil {
			binaryErr = err
			return
		}
		binaryPath = filepath.Join(dir, "mcptest-server")
		cmd := exec.Command("go", "build", "-o", binaryPath, "./internal/mcptest/mcptest-server")
		cmd.Dir = testpeer.Root()
		if out, err := cmd.CombinedOutput(); err != nil {
			binaryErr = fmt.Errorf("go build: %v: %s", err, out)
		}
	})
	if binaryErr != nil {
		tb.Fatal(binaryErr)
	}
	return binaryPath
}
