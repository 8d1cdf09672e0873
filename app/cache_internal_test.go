package app

import (
	"testing"

	"github.com/hermes-go/hermes/config"
	"github.com/hermes-go/hermes/llm"
	"github.com/hermes-go/hermes/provider"
)

// Prompt-caching markers go to models that cache (Claude's, whatever the
// API or router carries them), with prompt_caching.cache_ttl, and to
// nothing else.
func TestCacheMarkersFollowTheModelTable(t *testing.T) {
	rt := &Runtime{cfg: config.Default()}
	for _, tc := range []struct {
		ep   provider.Endpoint
		want bool
	}{
		{provider.Endpoint{Model: "claude-sonnet-4-5", APIMode: llm.AnthropicMessages}, true},
		{provider.Endpoint{Model: "anthropic/claude-sonnet-4.5", APIMode: llm.ChatCompletions}, true},
		{provider.Endpoint{Model: "any-model", APIMode: llm.AnthropicMessages}, true},
		{provider.Endpoint{Model: "gpt-4o", APIMode: llm.ChatCompletions}, false},
		{provider.Endpoint{Model: "llama3.1:8b", APIMode: llm.ChatCompletions}, false},
	} {
		got, err := rt.cacheOptions(tc.ep)
		if err != nil {
			t.Fatal(err)
		}
		if (got != nil) != tc.want {
			t.Errorf("%s on %s: cache markers %v, want %v", tc.ep.Model, tc.ep.APIMode, got, tc.want)
		}
	}
	rt.cfg.PromptCaching.CacheTTL = "5m"
	if got, _ := rt.cacheOptions(provider.Endpoint{Model: "claude-opus-4-1"}); got == nil || got.TTL != "5m" {
		t.Errorf("cache_ttl 5m: %+v", got)
	}
	rt.cfg.PromptCaching.CacheTTL = "2h"
	if _, err := rt.cacheOptions(provider.Endpoint{Model: "claude-opus-4-1"}); err == nil {
		t.Error("cache_ttl 2h was accepted")
	}
}
