package app_test

import (
	"os"
	"testing"

	"github.com/hermes-go/hermes/internal/mcptest"
	"github.com/hermes-go/hermes/sandbox"
)

// The test binary is its own sandbox helper, as hermes is, and its own
// MCP server (internal/mcptest).
func TestMain(m *testing.M) {
	sandbox.MaybeRunHelper()
	mcptest.MaybeServe()
	os.Exit(m.Run())
}
