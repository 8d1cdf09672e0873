package slash

import (
	"os"
	"testing"

	"github.com/hermes-go/hermes/sandbox"
)

// The test binary is its own sandbox helper, as hermes is.
func TestMain(m *testing.M) {
	sandbox.MaybeRunHelper()
	os.Exit(m.Run())
}
