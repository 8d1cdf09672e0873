package code

import (
	"os"
	"testing"

	"github.com/hermes-go/hermes/sandbox"
)

// The test binary is its own sandbox helper: sandboxed commands re-execute it.
func TestMain(m *testing.M) {
	sandbox.MaybeRunHelper()
	os.Exit(m.Run())
}
