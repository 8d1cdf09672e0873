package llm

import (
	"errors"
	"fmt"
	"time"
)

// ErrorKind classifies a failed model call. Callers branch on the kind,
// never on status codes or message text.
type ErrorKind string

// Error kinds.
const (
	ErrRateLimit       ErrorKind = "rate_limit"
	ErrServer          ErrorKind = "server_error"
	ErrAuth            ErrorKind = "auth"
	ErrContextOverflow ErrorKind = "context_overflow"
	ErrBadRequest      ErrorKind = "bad_request"
	ErrTimeout         ErrorKind = "timeout"
	ErrConnection      ErrorKind = "connection"
	ErrStalled         ErrorKind = "stalled_stream"
	ErrInvalidResponse ErrorKind = "invalid_response"
	ErrContentFilter   ErrorKind = "content_filter"
	// ErrBilling: credits, quota or spending limit exhausted. Retrying the
	// same provider does not help; another provider may.
	ErrBilling ErrorKind = "billing"
	// ErrModelNotFound: the provider does not serve the requested model.
	ErrModelNotFound ErrorKind = "model_not_found"
	ErrUnknown       ErrorKind = "unknown"
)

// ProviderError is a classified failure of one model call.
type ProviderError struct {
	Kind       ErrorKind
	StatusCode int    // HTTP status, 0 when none
	Message    string // the provider's message, or ours
	Body       string // the raw error body, capped
	Provider   string
	// RetryAfter is the wait the provider asked for, 0 when it did not:
	// retry-after-ms, else Retry-After; for a rate limit without them, the
	// latest of the X-RateLimit-Reset* headers (OpenAI's durations,
	// OpenRouter's epoch milliseconds), else the "try again in 1.5s" of
	// the message. It is capped at MaxRetryAfter.
	RetryAfter time.Duration
	// ContextLimit is the context window the provider reported in an
	// overflow error, 0 when the body did not say.
	ContextLimit int
	Err          error
}

func (e *ProviderError) Error() string {
	s := string(e.Kind)
	if e.Provider != "" {
		s = e.Provider + ": " + s
	}
	if e.StatusCode != 0 {
		s += fmt.Sprintf(" (HTTP %d)", e.StatusCode)
	}
	if e.Message != "" {
		s += ": " + e.Message
	} else if e.Err != nil {
		s += ": " + e.Err.Error()
	}
	return s
}

func (e *ProviderError) Unwrap() error { return e.Err }

// Retryable reports whether the same call may succeed if tried again.
func (e *ProviderError) Retryable() bool {
	switch e.Kind {
	case ErrRateLimit, ErrServer, ErrTimeout, ErrConnection, ErrStalled, ErrInvalidResponse, ErrUnknown:
		return true
	}
	return false
}

// IsContextOverflow reports whether the request was too large for the model.
func (e *ProviderError) IsContextOverflow() bool { return e.Kind == ErrContextOverflow }

// AsProviderError returns the ProviderError in err's chain, if any.
func AsProviderError(err error) (*ProviderError, bool) {
	var pe *ProviderError
	if errors.As(err, &pe) {
		return pe, true
	}
	return nil, false
}
