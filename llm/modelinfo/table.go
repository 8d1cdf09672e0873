package modelinfo

import "github.com/hermes-go/hermes/internal/lazy"

// A family is one row of the table: the names it matches and what it says
// about them. A row says only what it sets: a model's capabilities are the
// union of its matching rows, its window is the first matching row's that
// has one (so specific names come before their families), and a textOnly
// row vetoes every vision row.
type family struct {
	// match holds path.Match globs over the normalized name; any may match.
	match     []string
	window    int
	vision    bool
	textOnly  bool // an exception inside a vision family
	reasoning bool
	caching   bool
	responses bool
	toolUse   bool
	quirks    Quirk
}

// prefix matches names that start with one of ps.
func prefix(ps ...string) []string {
	g := make([]string, len(ps))
	for i, p := range ps {
		g[i] = p + "*"
	}
	return g
}

// named matches a family name at the start of a name or after a '-'
// ("meta-llama-3.1-8b-instruct" is a llama).
func named(fs ...string) []string {
	g := make([]string, 0, 2*len(fs))
	for _, f := range fs {
		g = append(g, f+"*", "*-"+f+"*")
	}
	return g
}

// anywhere matches names that contain one of ss.
func anywhere(ss ...string) []string {
	g := make([]string, len(ss))
	for i, s := range ss {
		g[i] = "*" + s + "*"
	}
	return g
}

func join(gs ...[]string) []string {
	var out []string
	for _, g := range gs {
		out = append(out, g...)
	}
	return out
}

// table is the knowledge, built on first use. The rows that set a window keep their relative
// order: the first match wins.
var table = lazy.Of(buildTable)

func buildTable() []family {
	return []family{
		// Anthropic.
		{match: anywhere("claude"), caching: true},
		{match: named("claude"), window: 200_000},
		{match: prefix("claude-3", "claude-sonnet-4", "claude-opus-4", "claude-haiku-4", "claude-4"), vision: true},
		{match: prefix("claude-opus-4-6", "claude-mythos"), quirks: AdaptiveThinking},

		// OpenAI.
		{match: named("gpt-4.1"), window: 1_047_576},
		{match: named("gpt-4o"), window: 128_000},
		{match: named("gpt-4-turbo"), window: 128_000},
		{match: named("gpt-3.5"), window: 16_385},
		{match: named("gpt-4"), window: 8_192},
		{match: named("gpt-5", "codex"), window: 400_000},
		{match: named("o1", "o3", "o4"), window: 200_000},
		{match: named("gpt-oss"), window: 131_072},
		{match: prefix("gpt-4o", "gpt-4.1", "gpt-4-turbo", "gpt-4-vision", "gpt-5", "chatgpt-4o", "o1", "o3", "o4"), vision: true},
		{match: anywhere("o1-mini", "o3-mini", "gpt-5-codex-mini", "gpt-oss"), textOnly: true},
		{match: join(prefix("gpt-5"), anywhere("codex")), responses: true, reasoning: true},
		{match: []string{"o[1-9]*"}, reasoning: true},
		{match: anywhere("gpt", "codex"), toolUse: true},

		// Google.
		{match: named("gemini"), window: 1_048_576},
		{match: prefix("gemini", "gemma-3"), vision: true},
		{match: anywhere("gemini", "gemma"), toolUse: true},

		// Meta.
		{match: named("llama-4", "llama4"), window: 1_048_576},
		{match: named("llama"), window: 131_072},
		{match: prefix("llama-4"), vision: true},

		// Open vision models, and the names that announce vision.
		{match: prefix("llava", "bakllava", "moondream", "minicpm-v", "pixtral"), vision: true},
		{match: anywhere("-vl", "vision"), vision: true},

		// Qwen, DeepSeek.
		{match: named("qwen3-coder"), window: 262_144},
		{match: named("qwen"), window: 131_072},
		{match: named("deepseek"), window: 128_000},

		// Moonshot Kimi.
		{match: named("kimi"), window: 262_144},
		{match: prefix("kimi-k2.5"), vision: true},
		{match: anywhere("kimi"), quirks: EmptyReasoningOnToolCalls},

		// Zhipu GLM.
		{match: named("glm-4.6"), window: 200_000},
		{match: named("glm"), window: 131_072},
		{match: prefix("glm-4.5v", "glm-4.6v"), vision: true},

		// xAI.
		{match: named("grok-4"), window: 256_000},
		{match: named("grok"), window: 131_072},
		{match: prefix("grok-4", "grok-2-vision"), vision: true},
		{match: anywhere("grok"), toolUse: true},

		// MiniMax, Mistral, Nous.
		{match: named("minimax"), window: 204_800},
		{match: named("mistral"), window: 131_072},
		{match: prefix("mistral-medium", "mistral-small-3"), vision: true},
		{match: named("hermes"), window: 131_072},
	}
}
