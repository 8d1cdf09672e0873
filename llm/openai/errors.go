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
