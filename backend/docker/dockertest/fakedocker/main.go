// Command fakedocker answers like the docker CLI for tests: see package
// dockertest.
package main

import "github.com/hermes-go/hermes/backend/docker/dockertest"

func main() { dockertest.Main() }
