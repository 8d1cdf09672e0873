package anthropic

import (
	"errors"
	"net/http"

	"github.com/anthropics/anthropic-sdk-go/v2"

	"github.com/hermes-go/hermes/llm"
)

// classify turns an SDK failure into an llm.ProviderError. An HTTP error
// is classified from its real status, headers and body. An `event: error`
// inside a 200 stream has no status of its own: it is passed as status 0
// so the classifier reads the kind from the error's type
// (overloaded_error, rate_limit_error, ...). Anything else is a transport
// failure for llm.ClassifyErr.
func (c *Client) classify(err error) error {
	var aerr *anthropic.Error
	if !errors.As(err, &aerr) {
		return llm.ClassifyErr(c.provider, err)
	}
	status := aerr.StatusCode
	if status < 400 {
		status = 0
	}
	var h http.Header
	if aerr.Response != nil {
		h = aerr.Response.Header
	}
	pe := llm.ClassifyHTTP(c.provider, status, h, []byte(aerr.RawJSON()), c.now())
	pe.Err = err
	return pe
}
