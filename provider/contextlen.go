package provider

import "github.com/hermes-go/hermes/llm/modelinfo"

// DefaultContextLength is the window assumed for a model the table does
// not know.
const DefaultContextLength = modelinfo.DefaultContextWindow

// ContextLength is the built-in context window of a model, by name
// ("anthropic/claude-sonnet-4.5", "gpt-4o-mini", "qwen3:32b"), from the
// model table, or DefaultContextLength.
func ContextLength(model string) int { return modelinfo.Lookup(model).ContextWindow }

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
