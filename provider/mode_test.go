package provider

import (
	"testing"

	"github.com/hermes-go/hermes/llm"
)

func TestResolveAPIModeFollowsUpstreamOrder(t *testing.T) {
	tests := []struct {
		name                               string
		explicit, provider, baseURL, model string
		want                               llm.APIMode
	}{
		{"explicit api_mode wins over provider", "chat_completions", "anthropic", "https://api.anthropic.com", "claude-sonnet-4-5", llm.ChatCompletions},
		{"explicit api_mode wins over url", "anthropic_messages", "custom", "https://llm.example.com/v1", "x", llm.AnthropicMessages},
		{"explicit value is case-insensitive", " Codex_Responses ", "openrouter", "https://openrouter.ai/api/v1", "x", llm.CodexResponses},
		{"anthropic provider behind a proxy", "", "anthropic", "https://proxy.example.com/v1", "claude-sonnet-4-5", llm.AnthropicMessages},
		{"claude alias is anthropic", "", "claude", "", "claude-sonnet-4-5", llm.AnthropicMessages},
		{"openai-codex provider", "", "openai-codex", "https://chatgpt.com/backend-api/codex", "gpt-5-codex", llm.CodexResponses},
		{"codex alias", "", "codex", "", "gpt-5", llm.CodexResponses},
		{"anthropic hostname", "", "custom", "https://api.anthropic.com/v1", "claude-opus-4-1", llm.AnthropicMessages},
		{"third-party path ending in /anthropic", "", "custom", "https://api.minimax.io/anthropic", "MiniMax-M2", llm.AnthropicMessages},
		{"/anthropic with trailing slash", "", "", "https://dashscope.aliyuncs.com/api/v2/apps/claude-code-proxy/anthropic/", "qwen3", llm.AnthropicMessages},
		{"lookalike host is not anthropic", "", "custom", "https://api.anthropic.com.evil.example/v1", "x", llm.ChatCompletions},
		{"anthropic in the query is not anthropic", "", "custom", "https://proxy.example/v1?upstream=api.anthropic.com", "x", llm.ChatCompletions},
		{"anthropic inside the path is not anthropic", "", "custom", "https://proxy.example/anthropic/v1", "x", llm.ChatCompletions},
		{"chatgpt codex backend url", "", "", "https://chatgpt.com/backend-api/codex", "gpt-5", llm.CodexResponses},
		{"gpt-5 on api.openai.com upgrades to responses", "", "openai", "https://api.openai.com/v1", "gpt-5", llm.CodexResponses},
		{"gpt-5.1-mini upgrades", "", "openai", "https://api.openai.com/v1", "gpt-5.1-mini", llm.CodexResponses},
		{"codex model upgrades", "", "openai", "https://api.openai.com/v1", "codex-mini-latest", llm.CodexResponses},
		{"gpt-4o on api.openai.com stays on chat", "", "openai", "https://api.openai.com/v1", "gpt-4o", llm.ChatCompletions},
		{"gpt-5 through openrouter stays on chat", "", "openrouter", "https://openrouter.ai/api/v1", "openai/gpt-5", llm.ChatCompletions},
		{"gpt-5 on azure stays on chat", "", "openai", "https://my.openai.azure.com/openai/v1", "gpt-5", llm.ChatCompletions},
		{"local server defaults to chat", "", "ollama", "http://localhost:11434/v1", "llama3.1", llm.ChatCompletions},
		{"nothing known defaults to chat", "", "", "", "", llm.ChatCompletions},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ResolveAPIMode(tt.explicit, tt.provider, tt.baseURL, tt.model)
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Fatalf("mode = %s, want %s", got, tt.want)
			}
		})
	}
}

func TestResolveAPIModeRejectsUnknownModes(t *testing.T) {
	if _, err := ResolveAPIMode("bedrock_converse", "openai", "", "gpt-4o"); err == nil {
		t.Fatal("unsupported mode accepted")
	}
}

func TestParseReasoningEffort(t *testing.T) {
	for in, want := range map[string]string{"": "", "none": "none", "LOW": "low", " medium ": "medium", "high": "high"} {
		got, err := ParseReasoningEffort(in)
		if err != nil || got != want {
			t.Errorf("ParseReasoningEffort(%q) = %q, %v", in, got, err)
		}
	}
	for _, bad := range []string{"max", "xhigh", "minimal", "1"} {
		if _, err := ParseReasoningEffort(bad); err == nil {
			t.Errorf("ParseReasoningEffort(%q) accepted", bad)
		}
	}
}
