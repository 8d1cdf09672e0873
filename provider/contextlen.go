package provider

import "strings"

// DefaultContextLength is the window assumed for a model the table does
// not know.
const DefaultContextLength = 128_000

// contextTable maps model-name fragments to context windows. The first
// matching fragment wins, so specific names come before their families.
var contextTable = []struct {
	fragment string
	tokens   int
}{
	{"claude", 200_000},
	{"gpt-4.1", 1_047_576},
	{"gpt-4o", 128_000},
	{"gpt-4-turbo", 128_000},
	{"gpt-3.5", 16_385},
	{"gpt-4", 8_192},
	{"gpt-5", 400_000},
	{"codex", 400_000},
	{"o1", 200_000},
	{"o3", 200_000},
	{"o4", 200_000},
	{"gpt-oss", 131_072},
	{"gemini", 1_048_576},
	{"llama-4", 1_048_576},
	{"llama4", 1_048_576},
	{"llama", 131_072},
	{"qwen3-coder", 262_144},
	{"qwen", 131_072},
	{"deepseek", 128_000},
	{"kimi", 262_144},
	{"glm-4.6", 200_000},
	{"glm", 131_072},
	{"grok-4", 256_000},
	{"grok", 131_072},
	{"minimax", 204_800},
	{"mistral", 131_072},
	{"hermes", 131_072},
}

// ContextLength is the built-in context window of a model, by name
// ("anthropic/claude-sonnet-4.5", "gpt-4o-mini", "qwen3:32b"), or
// DefaultContextLength.
func ContextLength(model string) int {
	m := strings.ToLower(strings.TrimSpace(model))
	if i := strings.LastIndex(m, "/"); i >= 0 {
		m = m[i+1:]
	}
	if m == "" {
		return DefaultContextLength
	}
	for _, e := range contextTable {
		if strings.HasPrefix(m, e.fragment) || strings.Contains(m, "-"+e.fragment) {
			return e.tokens
		}
	}
	return DefaultContextLength
}

// ContextWindow is the window to budget for on ep: its configured
// model.context_length or the table's value, lowered to what the
// provider reported in an overflow error (remembered in cache, which may
// be nil). A reported limit only ever lowers the window: overflow errors
// prove a ceiling, never room.
func ContextWindow(ep Endpoint, cache *ContextCache) int {
	n := ep.ContextLength
	if n <= 0 {
		n = ContextLength(ep.Model)
	}
	if cache != nil {
		if l := cache.Get(ep.Model, ep.BaseURL); l > 0 && l < n {
			n = l
		}
	}
	return n
}
