package provider

import (
	"fmt"
	"net/url"
	"strings"

	"github.com/hermes-go/hermes/llm"
	"github.com/hermes-go/hermes/llm/modelinfo"
)

// ParseAPIMode checks an api_mode value; "" is valid and means "derive".
func ParseAPIMode(s string) (llm.APIMode, error) {
	switch m := llm.APIMode(strings.ToLower(strings.TrimSpace(s))); m {
	case "", llm.ChatCompletions, llm.CodexResponses, llm.AnthropicMessages:
		return m, nil
	}
	return "", fmt.Errorf("unknown api_mode %q (want %s, %s or %s)", s, llm.ChatCompletions, llm.CodexResponses, llm.AnthropicMessages)
}

// ResolveAPIMode picks the wire format in upstream Hermes' order: an explicit
// api_mode; then the provider (anthropic, openai-codex); then the base
// URL's hostname (api.anthropic.com or a path ending in /anthropic, the
// ChatGPT Codex backend); else chat_completions. Afterwards a GPT-5-family
// or codex model on api.openai.com is upgraded to the Responses API, which
// those models need for reasoning with tools.
func ResolveAPIMode(explicit, providerID, baseURL, model string) (llm.APIMode, error) {
	m, err := ParseAPIMode(explicit)
	if err != nil {
		return "", err
	}
	if m != "" {
		return m, nil
	}
	if s, ok := Lookup(providerID); ok && s.APIMode != "" {
		return s.APIMode, nil
	}
	host, path := splitURL(baseURL)
	switch {
	case host == "api.anthropic.com" || strings.HasSuffix(path, "/anthropic"):
		return llm.AnthropicMessages, nil
	case host == "chatgpt.com" && strings.Contains(path, "/backend-api/codex"):
		return llm.CodexResponses, nil
	case host == "api.openai.com" && modelinfo.Lookup(model).ResponsesAPI:
		return llm.CodexResponses, nil
	}
	return llm.ChatCompletions, nil
}

// splitURL returns the lower-cased hostname and the path without a
// trailing slash; both empty when the URL does not parse.
func splitURL(raw string) (host, path string) {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil {
		return "", ""
	}
	return strings.ToLower(u.Hostname()), strings.TrimRight(strings.ToLower(u.Path), "/")
}

// providerForURL names the built-in provider serving a base URL, or
// "custom".
func providerForURL(baseURL string) string {
	host, path := splitURL(baseURL)
	switch {
	case host == "openrouter.ai" || strings.HasSuffix(host, ".openrouter.ai"):
		return "openrouter"
	case host == "api.anthropic.com":
		return "anthropic"
	case host == "api.openai.com":
		return "openai"
	case host == "chatgpt.com" && strings.Contains(path, "/backend-api/codex"):
		return "openai-codex"
	}
	return "custom"
}
