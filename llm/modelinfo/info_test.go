package modelinfo

import (
	"fmt"
	"path"
	"testing"
)

func TestLookupPinsEachFamily(t *testing.T) {
	const def = DefaultContextWindow
	tests := []struct {
		model string
		want  Info
	}{
		// Anthropic: caching everywhere, vision from Claude 3 on.
		{"claude-sonnet-4-5", Info{Vision: true, ContextWindow: 200_000, PromptCaching: true}},
		{"anthropic/claude-opus-4.1", Info{Vision: true, ContextWindow: 200_000, PromptCaching: true}},
		{"claude-3-5-haiku-latest", Info{Vision: true, ContextWindow: 200_000, PromptCaching: true}},
		{"claude-2.1", Info{ContextWindow: 200_000, PromptCaching: true}},
		{"bedrock/anthropic.claude-3-5-sonnet-20240620-v1:0", Info{ContextWindow: def, PromptCaching: true}},
		{"claude-opus-4-6", Info{Vision: true, ContextWindow: 200_000, PromptCaching: true, Quirks: AdaptiveThinking}},
		{"claude-mythos-1", Info{ContextWindow: 200_000, PromptCaching: true, Quirks: AdaptiveThinking}},

		// OpenAI.
		{"gpt-4o", Info{Vision: true, ContextWindow: 128_000, ToolUseGuidance: true}},
		{"openai/gpt-4o-mini", Info{Vision: true, ContextWindow: 128_000, ToolUseGuidance: true}},
		{"chatgpt-4o-latest", Info{Vision: true, ContextWindow: 128_000, ToolUseGuidance: true}},
		{"gpt-4.1-mini", Info{Vision: true, ContextWindow: 1_047_576, ToolUseGuidance: true}},
		{"gpt-4-turbo", Info{Vision: true, ContextWindow: 128_000, ToolUseGuidance: true}},
		{"gpt-4-vision-preview", Info{Vision: true, ContextWindow: 8_192, ToolUseGuidance: true}},
		{"gpt-4", Info{ContextWindow: 8_192, ToolUseGuidance: true}},
		{"gpt-3.5-turbo", Info{ContextWindow: 16_385, ToolUseGuidance: true}},
		{"gpt-5", Info{Vision: true, ContextWindow: 400_000, Reasoning: true, ResponsesAPI: true, ToolUseGuidance: true}},
		{"gpt-5.1-mini", Info{Vision: true, ContextWindow: 400_000, Reasoning: true, ResponsesAPI: true, ToolUseGuidance: true}},
		{"gpt-5-codex", Info{Vision: true, ContextWindow: 400_000, Reasoning: true, ResponsesAPI: true, ToolUseGuidance: true}},
		{"gpt-5-codex-mini", Info{ContextWindow: 400_000, Reasoning: true, ResponsesAPI: true, ToolUseGuidance: true}},
		{"codex-mini-latest", Info{ContextWindow: 400_000, Reasoning: true, ResponsesAPI: true, ToolUseGuidance: true}},
		{"o1", Info{Vision: true, ContextWindow: 200_000, Reasoning: true}},
		{"o1-mini", Info{ContextWindow: 200_000, Reasoning: true}},
		{"o3-mini", Info{ContextWindow: 200_000, Reasoning: true}},
		{"o4-mini", Info{Vision: true, ContextWindow: 200_000, Reasoning: true}},
		{"openai/gpt-oss-120b", Info{ContextWindow: 131_072, ToolUseGuidance: true}},

		// Google.
		{"google/gemini-2.5-pro", Info{Vision: true, ContextWindow: 1_048_576, ToolUseGuidance: true}},
		{"gemma-3-27b-it", Info{Vision: true, ContextWindow: def, ToolUseGuidance: true}},
		{"gemma-2-9b", Info{ContextWindow: def, ToolUseGuidance: true}},

		// Meta.
		{"meta-llama/llama-4-maverick", Info{Vision: true, ContextWindow: 1_048_576}},
		{"llama4:scout", Info{ContextWindow: 1_048_576}},
		{"meta-llama/llama-3.3-70b-instruct", Info{ContextWindow: 131_072}},
		{"Meta-Llama-3.1-8B-Instruct", Info{ContextWindow: 131_072}},
		{"llama-3.2-11b-vision-instruct", Info{Vision: true, ContextWindow: 131_072}},

		// Open vision models.
		{"llava:13b", Info{Vision: true, ContextWindow: def}},
		{"moondream", Info{Vision: true, ContextWindow: def}},
		{"mistralai/pixtral-12b", Info{Vision: true, ContextWindow: def}},

		// Qwen, DeepSeek.
		{"qwen3:32b", Info{ContextWindow: 131_072}},
		{"qwen/qwen3-coder", Info{ContextWindow: 262_144}},
		{"Qwen/Qwen2.5-VL-72B-Instruct", Info{Vision: true, ContextWindow: 131_072}},
		{"deepseek/deepseek-chat-v3.1", Info{ContextWindow: 128_000}},

		// Kimi.
		{"moonshotai/kimi-k2-0905", Info{ContextWindow: 262_144, Quirks: EmptyReasoningOnToolCalls}},
		{"moonshotai/kimi-k2.5", Info{Vision: true, ContextWindow: 262_144, Quirks: EmptyReasoningOnToolCalls}},

		// GLM.
		{"z-ai/glm-4.6", Info{ContextWindow: 200_000}},
		{"z-ai/glm-4.5-air", Info{ContextWindow: 131_072}},
		{"glm-4.5v", Info{Vision: true, ContextWindow: 131_072}},
		{"glm-4.6v", Info{Vision: true, ContextWindow: 200_000}},

		// xAI.
		{"x-ai/grok-4", Info{Vision: true, ContextWindow: 256_000, ToolUseGuidance: true}},
		{"grok-2-vision-1212", Info{Vision: true, ContextWindow: 131_072, ToolUseGuidance: true}},
		{"grok-3-mini", Info{ContextWindow: 131_072, ToolUseGuidance: true}},

		// MiniMax, Mistral, Nous.
		{"MiniMax-M2", Info{ContextWindow: 204_800}},
		{"mistral-small-3.2-24b", Info{Vision: true, ContextWindow: 131_072}},
		{"mistral-large-latest", Info{ContextWindow: 131_072}},
		{"nousresearch/hermes-4-405b", Info{ContextWindow: 131_072}},

		// Unknown names.
		{"some-unknown-model", Info{ContextWindow: def}},
		{"", Info{ContextWindow: def}},
		{"  ", Info{ContextWindow: def}},
	}
	for _, tt := range tests {
		if got := Lookup(tt.model); got != tt.want {
			t.Errorf("Lookup(%q)\n got %+v\nwant %+v", tt.model, got, tt.want)
		}
	}
}

func TestLookupIgnoresCaseSpaceAndVendor(t *testing.T) {
	want := Lookup("gpt-5")
	for _, m := range []string{"GPT-5", " gpt-5\n", "openai/gpt-5", "openrouter/openai/GPT-5"} {
		if got := Lookup(m); got != want {
			t.Errorf("Lookup(%q) = %+v, want %+v", m, got, want)
		}
	}
}

// A fragment inside a word is not a family: only a name that starts with
// it or has it after a '-' gets the family's window.
func TestWindowNeedsTheFamilyName(t *testing.T) {
	if got := Lookup("codellama-13b").ContextWindow; got != DefaultContextWindow {
		t.Fatalf("codellama window = %d", got)
	}
	if got := Lookup("nous-hermes-2").ContextWindow; got != 131_072 {
		t.Fatalf("nous-hermes window = %d", got)
	}
}

func TestEveryPatternIsAValidGlob(t *testing.T) {
	for i, f := range table.Get() {
		if len(f.match) == 0 {
			t.Errorf("row %d matches nothing", i)
		}
		for _, g := range f.match {
			if _, err := path.Match(g, "x"); err != nil {
				t.Errorf("row %d: %q: %v", i, g, err)
			}
		}
	}
}

// Lookups are remembered: asking again gives the same answer without
// matching the table again, and names past the bound are still answered.
func TestLookupIsRememberedAndBounded(t *testing.T) {
	first := Lookup("anthropic/claude-sonnet-4.5")
	if got := Lookup("anthropic/claude-sonnet-4.5"); got != first || !got.PromptCaching {
		t.Fatalf("second lookup %+v, first %+v", got, first)
	}
	if n := testing.AllocsPerRun(100, func() { Lookup("anthropic/claude-sonnet-4.5") }); n != 0 {
		t.Fatalf("a remembered lookup allocates %v times", n)
	}
	for i := range maxLookups + 10 {
		Lookup(fmt.Sprintf("made-up-model-%d", i))
	}
	size := 0
	lookups.Range(func(any, any) bool { size++; return true })
	if size > maxLookups {
		t.Fatalf("%d names remembered, bound %d", size, maxLookups)
	}
	if got := Lookup("gpt-4o-mini"); got != lookup("gpt-4o-mini") {
		t.Fatalf("past the bound: %+v", got)
	}
}
