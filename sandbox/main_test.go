package sandbox

import (
	"os"
	"testing"
)

// The test binary is its own sandbox helper: Wrap re-executes it.
func TestMain(m *testing.M) {
	MaybeRunHelper()
	os.Exit(m.Run())
}
