package openai

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/hermes-go/hermes/llm"
)

// maxErrorRead bounds how much of an error body is read; ClassifyHTTP keeps
// less than this.
const maxErrorRead = 64 << 10

// classifyMiddleware turns every HTTP error response into an
// *llm.ProviderError before the SDK sees it. The SDK would otherwise fail
// to build its own error from a body that is not JSON (an HTML 502 page, a
// plain-text 429) and lose the status and Retry-After headers.
func classifyMiddleware(provider string) option.Middleware {
	return func(req *http.Request, next option.MiddlewareNext) (*http.Response, error) {
		res, err := next(req)
		if err != nil || res.StatusCode < 400 {
			return res, err
		}
		body, _ := io.ReadAll(io.LimitReader(res.Body, maxErrorRead))
		res.Body.Close()
		return nil, llm.ClassifyHTTP(provider, res.StatusCode, res.Header, body)
	}
}

// mapError converts whatever the SDK returned into the error Complete
// reports: ctx's error when the call was interrupted, a ProviderError
// otherwise.
func mapError(ctx context.Context, provider string, err error) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if pe, ok := llm.AsProviderError(err); ok {
		return pe
	}
	var apiErr *openai.Error
	if errors.As(err, &apiErr) {
		var h http.Header
		if apiErr.Response != nil {
			h = apiErr.Response.Header
		}
		return llm.ClassifyHTTP(provider, apiErr.StatusCode, h, []byte(apiErr.RawJSON()))
	}
	var syn *json.SyntaxError
	if errors.As(err, &syn) {
		return &llm.ProviderError{Kind: llm.ErrInvalidResponse, Provider: provider,
			Message: fmt.Sprintf("malformed response: %v", err), Err: err}
	}
	return llm.ClassifyErr(provider, err)
}

// streamError classifies an error the provider sent inside an SSE stream
// ({"error": {...}}), after a 200 status: ClassifyHTTP reads the kind from
// the error's numeric code (OpenRouter puts the upstream status there) or
// its type.
func streamError(provider string, data []byte) *llm.ProviderError {
	return llm.ClassifyHTTP(provider, 0, nil, data)
}

func invalidResponse(provider, msg string) *llm.ProviderError {
	return &llm.ProviderError{Kind: llm.ErrInvalidResponse, Provider: provider, Message: msg}
}
