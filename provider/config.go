package provider

import "time"

// Config is the part of config.yaml (and of the command line) that
// resolution reads. The field comments name the keys.
type Config struct {
	Provider string // model.provider (or --provider): a provider id, "auto" or ""
	Model    string // model.default (or --model)
	BaseURL  string // model.base_url (or --base-url)
	APIKey   string // --api-key or model.api_key; wins over every other source
	APIMode  string // model.api_mode
	// ContextLength is model.context_length (0 = look it up).
	ContextLength int

	Providers         map[string]ProviderConfig // providers.<id>
	FallbackProviders []FallbackEntry           // fallback_providers
	Auxiliary         map[string]AuxConfig      // auxiliary.<task>
}

// ProviderConfig is providers.<id>: overrides for a built-in provider, or
// a named OpenAI-compatible endpoint of the user's own.
type ProviderConfig struct {
	BaseURL string
	KeyEnv  string
	// KeyCmd is a shell command printing the key (a secret manager call).
	KeyCmd  string
	APIMode string
	Headers map[string]string
	// RequestTimeout bounds one attempt of a call.
	RequestTimeout time.Duration
}

// FallbackEntry is one entry of fallback_providers. Provider and Model are
// required.
type FallbackEntry struct {
	Provider      string
	Model         string
	BaseURL       string
	KeyEnv        string
	APIMode       string
	ContextLength int
}

// AuxConfig is auxiliary.<task>. Provider "main" or "" (with no model and
// no base URL) means the primary endpoint.
type AuxConfig struct {
	Provider string
	Model    string
	BaseURL  string
	APIKey   string
	APIMode  string
	// Timeout bounds one attempt; 0 means the task's default.
	Timeout           time.Duration
	FallbackProviders []FallbackEntry
}
