// Command hermes is the Hermes agent: a one-shot prompt (-z), an
// interactive chat, and the sessions tools. See internal/cli.
package main

import (
	"os"

	"github.com/hermes-go/hermes/internal/cli"
)

func main() {
	os.Exit(cli.Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
