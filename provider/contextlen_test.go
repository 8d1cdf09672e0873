package provider

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hermes-go/hermes/llm"
)

func TestContextLengthTable(t *testing.T) {
	tests := map[string]int{
		"claude-sonnet-4-5":                 200_000,
		"anthropic/claude-opus-4.1":         200_000,
		"gpt-4o":                            128_000,
		"openai/gpt-4o-mini":                128_000,
		"gpt-4.1-mini":                      1_047_576,
		"gpt-5":                             400_000,
		"gpt-5-codex":                       400_000,
		"o3-mini":                           200_000,
		"o4-mini":                           200_000,
		"google/gemini-2.5-pro":             1_048_576,
		"meta-llama/llama-3.3-70b-instruct": 131_072,
		"qwen3:32b":                         131_072,
		"qwen/qwen3-coder":                  262_144,
		"deepseek/deepseek-chat-v3.1":       128_000,
		"moonshotai/kimi-k2-0905":           262_144,
		"z-ai/glm-4.6":                      200_000,
		"z-ai/glm-4.5-air":                  131_072,
		"nousresearch/hermes-4-405b":        131_072,
		"some-unknown-model":                DefaultContextLength,
		"":                                  DefaultContextLength,
	}
	for model, want := range tests {
		if got := ContextLength(model); got != want {
			t.Errorf("ContextLength(%q) = %d, want %d", model, got, want)
		}
	}
}

func TestContextWindowPrecedence(t *testing.T) {
	dir := t.TempDir()
	cache, err := OpenContextCache(filepath.Join(dir, "context_length_cache.json"))
	if err != nil {
		t.Fatal(err)
	}
	ep := Endpoint{Model: "qwen3", BaseURL: "http://localhost:8000/v1"}
	if got := ContextWindow(ep, cache); got != 131_072 {
		t.Fatalf("table value = %d", got)
	}
	ep.ContextLength = 65_536
	if got := ContextWindow(ep, cache); got != 65_536 {
		t.Fatalf("configured value = %d", got)
	}
	overflow := &llm.ProviderError{Kind: llm.ErrContextOverflow, ContextLimit: 32_768}
	if n, err := cache.LearnFrom(ep, overflow); err != nil || n != 32_768 {
		t.Fatalf("LearnFrom = %d, %v", n, err)
	}
	if got := ContextWindow(ep, cache); got != 32_768 {
		t.Fatalf("learned limit not applied: %d", got)
	}
	other := Endpoint{Model: "qwen3", BaseURL: "http://other:8000/v1"}
	if got := ContextWindow(other, cache); got != 131_072 {
		t.Fatalf("limit leaked to another base URL: %d", got)
	}
	// A learned limit above the configured one does not raise it.
	if err := cache.Learn("small", "u", 500_000); err != nil {
		t.Fatal(err)
	}
	if got := ContextWindow(Endpoint{Model: "small", BaseURL: "u", ContextLength: 8192}, cache); got != 8192 {
		t.Fatalf("learned limit raised the window: %d", got)
	}
	if got := ContextWindow(ep, nil); got != 65_536 {
		t.Fatalf("nil cache: %d", got)
	}
}

func TestContextCacheSurvivesRestart(t *testing.T) {
	path := filepath.Join(t.TempDir(), "home", "context_length_cache.json")
	c, err := OpenContextCache(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Learn("deepseek-chat", "https://api.deepseek.com/v1", 65_536); err != nil {
		t.Fatal(err)
	}
	again, err := OpenContextCache(path)
	if err != nil {
		t.Fatal(err)
	}
	if got := again.Get("deepseek-chat", "https://api.deepseek.com/v1"); got != 65_536 {
		t.Fatalf("after reopening: %d", got)
	}
	if n, _ := again.LearnFrom(Endpoint{}, &llm.ProviderError{Kind: llm.ErrServer}); n != 0 {
		t.Fatal("learned from a non-overflow error")
	}
	entries, _ := os.ReadDir(filepath.Dir(path))
	if len(entries) != 1 {
		t.Fatalf("temporary files left behind: %v", entries)
	}
}

func TestDamagedContextCacheIsReportedAndReplaced(t *testing.T) {
	path := filepath.Join(t.TempDir(), "context_length_cache.json")
	if err := os.WriteFile(path, []byte("{not json"), 0o600); err != nil {
		t.Fatal(err)
	}
	c, err := OpenContextCache(path)
	if err == nil || !strings.Contains(err.Error(), "damaged") {
		t.Fatalf("err = %v", err)
	}
	if err := c.Learn("m", "u", 1000); err != nil {
		t.Fatal(err)
	}
	if again, err := OpenContextCache(path); err != nil || again.Get("m", "u") != 1000 {
		t.Fatalf("replaced cache unreadable: %v", err)
	}
}
