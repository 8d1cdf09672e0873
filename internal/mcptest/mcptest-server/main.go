// Command mcptest-server is package mcptest's server as a program of its
// own: small, so it starts in a few milliseconds, for benchmarks of
// sessions with many MCP servers.
package main

import (
	"os"

	"github.com/hermes-go/hermes/internal/mcptest"
)

func main() {
	os.Setenv(mcptest.ServeEnv, "1")
	mcptest.MaybeServe()
}
