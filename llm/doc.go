// Package llm is the vocabulary every model call shares: the canonical
// OpenAI-style Message (text, with Image parts on user messages), the
// Request a transport sends, the Response and
// stream Deltas it returns, and the classified ProviderError it fails with.
//
// Transports (llm/openai, llm/anthropic) convert at the edge, both ways, and
// nothing outside them knows a wire format. The sequence repairs in
// sanitize.go run on the API copy before every call so that providers never
// see a history that breaks the alternation rules.
//
// Concurrency: the types here are plain values. A Client must be safe for
// concurrent use by several goroutines; each Complete call is independent.
package llm
