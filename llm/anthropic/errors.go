package anthropic

import (
	"errors"
	"net/http"

	"github.com/anthropics/anthropic-sdk-go/v2"

	"github.com/hermes-go/hermes/llm"
)

// classify turns an SDK failure into an llm.ProviderError. An HTTP error
// is classified from its real status, headers and body; an error event in
// the middle of a 200 stream carries no status of its own, so the one its
// error type stands for is used.
func (c *Client) classify(err error) error {
	var aerr *anthropic.Error
	if !errors.As(err, &aerr) {
		return llm.ClassifyErr(c.provider, err)
	}
	status := aerr.StatusCode
	if status < 400 {
		status = statusForType(string(aerr.Type()))
	}
	var h http.Header
	if aerr.Response != nil {
		h = aerr.Response.Header
	}
	pe := llm.ClassifyHTTP(c.provider, status, h, []byte(aerr.RawJSON()))
	pe.Err = err
	return pe
}

// statusForType gives the HTTP status Anthropic documents for each error
// type, for errors that arrive inside a stream.
func statusForType(t string) int {
	switch t {
	case "invalid_request_error":
		return http.StatusBadRequest
	case "authentication_error":
		return http.StatusUnauthorized
	case "permission_error":
		return http.StatusForbidden
	case "not_found_error":
		return http.StatusNotFound
	case "request_too_large":
		return http.StatusRequestEntityTooLarge
	case "rate_limit_error":
		return http.StatusTooManyRequests
	case "timeout_error":
		return http.StatusGatewayTimeout
	case "overloaded_error":
		return 529
	}
	return http.StatusInternalServerError
}
