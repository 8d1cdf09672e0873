package provider

import "github.com/hermes-go/hermes/llm"

// Factory builds the transport for an API mode. Building must not touch
// the network: a Chain builds clients lazily, under its lock.
type Factory func(mode llm.APIMode, opts llm.Options) (llm.Client, error)
