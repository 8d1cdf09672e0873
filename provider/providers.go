package provider

import (
	"slices"
	"strings"

	"github.com/hermes-go/hermes/llm"
)

// Spec describes a built-in provider.
type Spec struct {
	ID      string
	BaseURL string
	// BaseURLEnv, when set in the environment, replaces BaseURL.
	BaseURLEnv string
	// KeyEnvs are the variables searched for the key, in order.
	KeyEnvs []string
	// KeyOptional: local servers usually need no key.
	KeyOptional bool
	// APIMode is the provider's wire format; "" derives it from the URL
	// and model (ResolveAPIMode).
	APIMode      llm.APIMode
	DefaultModel string
	// Local servers run on the user's machine (no stale-stream watchdog,
	// no rate limits worth a fallback).
	Local bool
}

// AutoOrder is the order in which provider "auto" looks for credentials.
var AutoOrder = []string{"openrouter", "anthropic", "openai"}

var builtins = []Spec{
	{ID: "openrouter", BaseURL: "https://openrouter.ai/api/v1", KeyEnvs: []string{"OPENROUTER_API_KEY"},
		DefaultModel: "anthropic/claude-sonnet-4.5"},
	{ID: "openai", BaseURL: "https://api.openai.com/v1", BaseURLEnv: "OPENAI_BASE_URL",
		KeyEnvs: []string{"OPENAI_API_KEY"}, DefaultModel: "gpt-5"},
	{ID: "anthropic", BaseURL: "https://api.anthropic.com", KeyEnvs: []string{"ANTHROPIC_API_KEY"},
		APIMode: llm.AnthropicMessages, DefaultModel: "claude-sonnet-4-5"},
	// The ChatGPT-backed Codex endpoint takes an OAuth access token; it
	// comes from key_cmd, key_env or --api-key.
	{ID: "openai-codex", BaseURL: "https://chatgpt.com/backend-api/codex",
		APIMode: llm.CodexResponses, DefaultModel: "gpt-5-codex"},
	{ID: "custom", KeyEnvs: []string{"OPENAI_API_KEY"}, KeyOptional: true},
	{ID: "ollama", BaseURL: "http://localhost:11434/v1", KeyOptional: true, Local: true},
	{ID: "vllm", BaseURL: "http://localhost:8000/v1", KeyOptional: true, Local: true},
	{ID: "llamacpp", BaseURL: "http://localhost:8080/v1", KeyOptional: true, Local: true},
	{ID: "lmstudio", BaseURL: "http://localhost:1234/v1", KeyOptional: true, Local: true},
}

// alias returns the provider id an alternative spelling stands for.
func alias(id string) (string, bool) {
	switch id {
	case "codex":
		return "openai-codex", true
	case "claude":
		return "anthropic", true
	case "llama.cpp", "llama-cpp":
		return "llamacpp", true
	case "lm-studio":
		return "lmstudio", true
	case "local":
		return "custom", true
	}
	return "", false
}

// Lookup returns the built-in provider with this id or alias.
func Lookup(id string) (Spec, bool) {
	id = normalizeID(id)
	i := slices.IndexFunc(builtins, func(s Spec) bool { return s.ID == id })
	if i < 0 {
		return Spec{}, false
	}
	s := builtins[i]
	s.KeyEnvs = slices.Clone(s.KeyEnvs)
	return s, true
}

// Providers lists the built-in providers.
func Providers() []Spec {
	out := make([]Spec, len(builtins))
	for i := range builtins {
		out[i], _ = Lookup(builtins[i].ID)
	}
	return out
}

func normalizeID(id string) string {
	id = strings.ToLower(strings.TrimSpace(id))
	if a, ok := alias(id); ok {
		return a
	}
	return id
}
