package provider

import (
	"maps"
	"time"

	"github.com/hermes-go/hermes/llm"
)

// Endpoint is one resolved place to send model calls: everything a
// transport needs, plus where the key came from so it can be refreshed.
type Endpoint struct {
	Provider string
	Model    string
	BaseURL  string
	APIKey   string
	APIMode  llm.APIMode
	// KeyEnv is the variable the key was read from, re-read on a refresh.
	KeyEnv string
	// KeyCmd is the command that printed the key, re-run on a refresh.
	KeyCmd  string
	Headers map[string]string
	// ContextLength is the configured context window; 0 means look it up
	// (ContextLength).
	ContextLength int
	// Timeout bounds one attempt of a call; 0 means no bound beyond the
	// caller's context.
	Timeout time.Duration
	// Pool is the provider's key pool when APIKey is one of its keys: a
	// Chain then rotates through it (nil: the one key).
	Pool *Pool `json:"-"`
}

// Options is what a transport is built from.
func (e Endpoint) Options() llm.Options {
	return llm.Options{BaseURL: e.BaseURL, APIKey: e.APIKey, Provider: e.Provider, Headers: maps.Clone(e.Headers)}
}

// Redacted returns e without its API key (nor its pool's), for events
// and logs.
func (e Endpoint) Redacted() Endpoint {
	e.APIKey = ""
	e.Pool = nil
	return e
}

// String names the endpoint for people: "provider/model".
func (e Endpoint) String() string {
	if e.Provider == "" {
		return e.Model
	}
	return e.Provider + "/" + e.Model
}
