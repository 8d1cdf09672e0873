package llmtest

// Dialect is a provider's variant of the Chat Completions format. Many
// providers speak it, each with its own way of sending reasoning and a few
// quirks a robust client must survive.
type Dialect string

const (
	// DialectOpenAI is the default: reasoning as reasoning_content deltas
	// (DeepSeek, xAI, Kimi and most OpenAI-compatible servers), usage in a
	// chunk with no choices when stream_options.include_usage is set.
	DialectOpenAI Dialect = "openai"
	// DialectOpenRouter is OpenRouter's, as recorded: reasoning as
	// "reasoning" text plus "reasoning_details" entries, the last one
	// carrying the signature; a ": OPENROUTER PROCESSING" SSE comment
	// before the first chunk and blank lines before a non-streamed body
	// (its keep-alives); "provider" and "native_finish_reason" fields; and
	// the usage, with its cost, always sent, in a last chunk that repeats
	// the finish reason.
	DialectOpenRouter Dialect = "openrouter"
)

// SetDialect selects the Chat Completions dialect of later replies. The
// Responses and Anthropic formats have one dialect each.
func (s *Server) SetDialect(d Dialect) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.dialect = d
}

// openRouterKeepAlive is what OpenRouter sends while the model works.
const (
	openRouterComment   = "OPENROUTER PROCESSING"
	openRouterBlankBody = "\n         \n\n         \n"
	openRouterProvider  = "llmtest"
)

// reasoningDetail is one OpenRouter reasoning_details entry.
func reasoningDetail(key, value string) []any {
	return []any{map[string]any{"type": "reasoning.text", key: value, "format": "anthropic-claude-v1", "index": 0}}
}

// nativeFinish is the upstream (Anthropic-style) finish reason OpenRouter
// reports beside the normalised one.
func nativeFinish(t *turn) string { return anthropicStop(t) }
