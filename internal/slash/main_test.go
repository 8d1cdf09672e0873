package slash

import (
	"os"
	"testing"

	"github.com/hermes-go/hermes/internal/mcptest"
	"github.com/hermes-go/hermes/sandbox"
)

// The test binary is its own sandbox helper, as hermes is.
func TestMain(m *testing.M) {
	sandbox.MaybeRunHelper()
	mcptest.MaybeServe() // the test binary is also an MCP server for /reload-mcp
	os.Exit(m.Run())
}
