package pricing

import (
	"math"
	"testing"

	"github.com/hermes-go/hermes/llm"
)

func TestLookupMatchesProviderSpellingsAndNothingElse(t *testing.T) {
	sonnet := Price{Input: 3, Output: 15, CacheRead: 0.30, CacheWrite: 3.75}
	mini := Price{Input: 0.15, Output: 0.60, CacheRead: 0.075, CacheWrite: 0.15}
	cases := []struct {
		model string
		want  Price
		ok    bool
	}{
		{"claude-sonnet-4-20250514", sonnet, true},
		{"anthropic/claude-sonnet-4.5", sonnet, true},
		{"anthropic.claude-3-5-sonnet-20240620-v1:0", sonnet, true},
		{"us.anthropic.claude-3-5-sonnet-20241022-v2:0", sonnet, true},
		{"claude-3-5-sonnet@20240620", sonnet, true},
		{"claude-3-5-sonnet-latest", sonnet, true},
		{"Claude-Sonnet-4-5", sonnet, true},
		{"gpt-4o-mini", mini, true},
		{"openai/gpt-4o-mini-2024-07-18", mini, true},
		{"gpt-4o-2024-05-13", Price{Input: 5, Output: 15, CacheRead: 5, CacheWrite: 5}, true}, // a snapshot priced apart
		{"gpt-4o-2024-08-06", Price{Input: 2.50, Output: 10, CacheRead: 1.25, CacheWrite: 2.50}, true},
		// Never a guess: unknown names, families' unknown members, local models.
		{"gpt-4o-mini-search-preview", Price{}, false},
		{"gpt-4", Price{}, false},
		{"claude-sonnet", Price{}, false},
		{"llama3.1:8b", Price{}, false},
		{"qwen2.5-coder", Price{}, false},
		{"test-model", Price{}, false},
		{"", Price{}, false},
	}
	for _, c := range cases {
		got, ok := Lookup(c.model)
		if ok != c.ok || got != c.want {
			t.Errorf("Lookup(%q) = %+v, %v; want %+v, %v", c.model, got, ok, c.want, c.ok)
		}
	}
}

func TestCachedTokensArePricedApartFromPlainInput(t *testing.T) {
	p := Price{Input: 3, Output: 15, CacheRead: 0.30, CacheWrite: 3.75}
	// 1M prompt tokens of which 600k read from the cache and 100k
	// written to it; 200k output.
	c := p.Of(llm.Usage{InputTokens: 1_000_000, CacheReadTokens: 600_000, CacheWriteTokens: 100_000, OutputTokens: 200_000})
	want := Cost{Input: 0.9, CacheRead: 0.18, CacheWrite: 0.375, Output: 3}
	for _, x := range []struct {
		name      string
		got, want float64
	}{{"input", c.Input, want.Input}, {"cache read", c.CacheRead, want.CacheRead}, {"cache write", c.CacheWrite, want.CacheWrite},
		{"output", c.Output, want.Output}, {"total", c.Total(), 4.455}} {
		if math.Abs(x.got-x.want) > 1e-9 {
			t.Errorf("%s: $%v, want $%v", x.name, x.got, x.want)
		}
	}
	if _, ok := Estimate("no-such-model", llm.Usage{InputTokens: 10}); ok {
		t.Fatal("an unknown model was priced")
	}
}
