package openai

import (
	"time"

	"github.com/hermes-go/hermes/llm"
)

// streamError classifies an error the provider sent inside an SSE stream
// ({"error": {...}}), after a 200 status: ClassifyHTTP reads the kind from
// the error's numeric code (OpenRouter puts the upstream status there) or
// its type.
func streamError(provider string, data []byte) *llm.ProviderError {
	return llm.ClassifyHTTP(provider, 0, nil, data, time.Time{})
}

func invalidResponse(provider, msg string) *llm.ProviderError {
	return &llm.ProviderError{Kind: llm.ErrInvalidResponse, Provider: provider, Message: msg}
}

// cutShort is a reply that ended before its terminator: a stream without
// its finish event, a body whose JSON stops half-way. The connection (or
// a proxy in between) gave up, so it is classified as a dropped
// connection and retried as one; nothing of it is returned.
func cutShort(provider, msg string) *llm.ProviderError {
	return &llm.ProviderError{Kind: llm.ErrConnection, Provider: provider, Message: msg}
}
