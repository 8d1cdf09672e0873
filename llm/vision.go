package llm

import "strings"

// visionFamilies are substrings of model names known to accept images.
// The list is deliberately short: a model not on it is taken as text only,
// and config model.vision (or the embedder) says otherwise.
var visionFamilies = []string{
	"gpt-4o", "gpt-4.1", "gpt-4-turbo", "gpt-4-vision", "gpt-5", "chatgpt-4o", "o1", "o3", "o4",
	"claude-3", "claude-sonnet-4", "claude-opus-4", "claude-haiku-4", "claude-4",
	"gemini", "gemma-3", "llava", "bakllava", "moondream", "minicpm-v", "pixtral",
	"-vl", "vision", "llama-4", "grok-4", "grok-2-vision", "mistral-medium", "mistral-small-3",
	"kimi-k2.5", "glm-4.5v", "glm-4.6v",
}

// textOnlyFamilies are exceptions inside those families.
var textOnlyFamilies = []string{"o1-mini", "o3-mini", "gpt-5-codex-mini", "gpt-oss"}

// SupportsVision reports whether a model is known to accept images, from
// its name (a provider prefix such as "anthropic/" is ignored).
func SupportsVision(model string) bool {
	m := strings.ToLower(model)
	if i := strings.LastIndexByte(m, '/'); i >= 0 {
		m = m[i+1:]
	}
	for _, f := range textOnlyFamilies {
		if strings.Contains(m, f) {
			return false
		}
	}
	for _, f := range visionFamilies {
		if strings.HasPrefix(m, f) || strings.Contains(m, f) && (f[0] == '-' || f == "vision") {
			return true
		}
	}
	return false
}
