// Command hermes is the Hermes agent: a one-shot prompt (-z), an
// interactive chat, and the sessions tools. See internal/cli.
package main

import (
	"os"

	"github.com/hermes-go/hermes/internal/cli"
	"github.com/hermes-go/hermes/sandbox"
)

func main() {
	// A sandboxed command starts as this program re-executed: the helper
	// applies the policy and becomes the command, before any CLI work.
	sandbox.MaybeRunHelper()
	os.Exit(cli.Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
