package llm

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/hermes-go/hermes/internal/lazy"
	"github.com/hermes-go/hermes/internal/lazyre"
)

// MaxRetryAfter caps a provider-requested wait.
const MaxRetryAfter = 10 * time.Minute

const maxErrorBody = 4096

// ClassifyHTTP turns an HTTP error response into a ProviderError. It reads
// the provider's message from the usual JSON error shapes (OpenAI,
// Anthropic, OpenRouter with its metadata.raw upstream error, vLLM,
// llama.cpp, Gemini) and the wait it asked for from the headers and body
// (see ProviderError.RetryAfter). now is when the response arrived: it turns an absolute
// retry time (an HTTP-date Retry-After, an epoch X-RateLimit-Reset) into
// a wait; the zero time means time.Now().
//
// A status of 0 (or 2xx) means the error arrived inside a stream (an
// Anthropic `event: error`, an OpenRouter chunk with an "error" object):
// the kind then comes from the error's type or numeric code.
func ClassifyHTTP(provider string, status int, header http.Header, body []byte, now time.Time) *ProviderError {
	if len(body) > maxErrorBody {
		body = body[:maxErrorBody]
	}
	b := parseErrorBody(body)
	if (status == 0 || status/100 == 2) && b.status >= 400 {
		status = b.status
	}
	e := &ProviderError{StatusCode: status, Provider: provider, Body: string(body), Message: b.message()}
	if e.Message == "" {
		e.Message = http.StatusText(status)
	}
	text := strings.ToLower(b.msg + " " + b.raw + " " + b.typ + " " + b.code)
	e.Kind = classifyStatus(status, b, text)
	if e.Kind == ErrContextOverflow {
		e.ContextLimit = b.nCtx
		if e.ContextLimit == 0 {
			e.ContextLimit = parseContextLimit(text)
		}
	}
	if now.IsZero() {
		now = time.Now()
	}
	e.RetryAfter = retryWait(header, text, e.Kind, now)
	return e
}

// classifyStatus picks the kind: content-policy blocks first (they come
// as 400 or 403 and must not trigger a credential refresh), then the
// status, then the error's type or code when there is no status.
func classifyStatus(status int, b errorBody, text string) ErrorKind {
	if hasAny(text, contentPolicyPhrases) || len(b.flagged) > 0 {
		return ErrContentFilter
	}
	switch {
	case status == http.StatusUnauthorized:
		return ErrAuth
	case status == http.StatusPaymentRequired:
		return ErrBilling
	case status == http.StatusForbidden:
		if hasAny(text, billingPhrases) {
			return ErrBilling
		}
		return ErrAuth
	case status == http.StatusNotFound:
		if isModelMissing(text) {
			return ErrModelNotFound
		}
		return ErrBadRequest
	case status == http.StatusRequestTimeout:
		return ErrTimeout
	case status == http.StatusRequestEntityTooLarge:
		return ErrContextOverflow
	case status == http.StatusTooManyRequests:
		// OpenAI answers an exhausted quota with 429 too; waiting never
		// fixes it.
		if hasAny(text, quotaPhrases) {
			return ErrBilling
		}
		return ErrRateLimit
	case status == http.StatusGatewayTimeout || status == 524:
		return ErrTimeout
	case status == http.StatusInternalServerError || status == http.StatusBadGateway:
		// Some gateways report an upstream overflow as a 500/502.
		if isOverflowText(text) {
			return ErrContextOverflow
		}
		return ErrServer
	case status >= 500:
		return ErrServer
	case status >= 400:
		switch {
		case hasAny(text, billingPhrases) || hasAny(text, quotaPhrases):
			return ErrBilling
		case isOverflowText(text):
			return ErrContextOverflow
		case isModelMissing(text):
			return ErrModelNotFound
		}
		return ErrBadRequest
	}
	return classifyType(b, text)
}

// classifyType classifies an error without an HTTP status, from the
// type/code the provider put in the body, then from its message.
func classifyType(b errorBody, text string) ErrorKind {
	for _, k := range []string{b.typ, b.code} {
		switch k {
		case "overloaded_error", "api_error", "server_error", "internal_error":
			return ErrServer
		case "rate_limit_error", "rate_limit_exceeded":
			return ErrRateLimit
		case "authentication_error", "permission_error", "invalid_api_key":
			return ErrAuth
		case "not_found_error", "model_not_found":
			return ErrModelNotFound
		case "request_too_large", "context_length_exceeded", "exceed_context_size_error":
			return ErrContextOverflow
		case "insufficient_quota", "billing_error":
			return ErrBilling
		}
	}
	switch {
	case isOverflowText(text):
		return ErrContextOverflow
	case hasAny(text, quotaPhrases) || hasAny(text, billingPhrases):
		return ErrBilling
	case strings.Contains(text, "rate limit") || strings.Contains(text, "too many requests"):
		return ErrRateLimit
	case strings.Contains(text, "overloaded"):
		return ErrServer
	}
	return ErrUnknown
}

// ClassifyErr classifies a transport-level error (no HTTP status).
// Context cancellation is returned unchanged: it is an interrupt, not a
// provider failure. An error that already is a ProviderError is returned
// as is.
func ClassifyErr(provider string, err error) error {
	if err == nil {
		return nil
	}
	if errors.Is(err, context.Canceled) {
		return err
	}
	if _, ok := AsProviderError(err); ok {
		return err
	}
	e := &ProviderError{Provider: provider, Err: err, Message: err.Error()}
	var ne net.Error
	var dns *net.DNSError
	switch {
	case errors.Is(err, context.DeadlineExceeded) || (errors.As(err, &ne) && ne.Timeout()):
		e.Kind = ErrTimeout
	case errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.ECONNREFUSED) ||
		errors.Is(err, syscall.EPIPE) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, io.EOF) || errors.As(err, &dns) || isConnText(err.Error()):
		e.Kind = ErrConnection
	default:
		e.Kind = ErrUnknown
	}
	return e
}

func isConnText(s string) bool {
	s = strings.ToLower(s)
	for _, k := range []string{"connection reset", "connection refused", "unexpected eof", "broken pipe", "peer closed", "connection lost", "server closed", "no such host", "eof"} {
		if strings.Contains(s, k) {
			return true
		}
	}
	return false
}

func hasAny(s string, phrases []string) bool {
	for _, p := range phrases {
		if strings.Contains(s, p) {
			return true
		}
	}
	return false
}

var (
	contentPolicyPhrases = []string{
		"content_policy_violation", "violates our usage policies", "violating our usage policy",
		"content management policy", "content_filter", "rejected as a result of our safety system",
		"flagged for possible", "requires moderation", "your input was flagged",
	}
	billingPhrases = []string{
		"credit balance is too low", "insufficient credits", "requires more credits",
		"key limit exceeded", "spending limit", "billing", "payment required",
	}
	quotaPhrases = []string{
		"insufficient_quota", "exceeded your current quota",
	}
	modelMissingPhrases = []string{
		"model_not_found", "not_found_error", "does not exist", "no endpoints found",
		"model not found", "unknown model", "is not a valid model",
	}
	overflowPhrases = []string{
		"context_length_exceeded", "context length", "context window", "maximum context",
		"prompt is too long", "too many tokens", "input is too long", "exceeds the context",
		"exceed context limit", "context size", "exceed_context_size", "max_model_len",
		"input token count", "string_above_max_length", "request_too_large",
	}
)

// modelNotFound matches Ollama's `model "x" not found` and the like.
var modelNotFound = lazyre.New(`\bmodel\b[^.]{0,80}\bnot found`)

func isModelMissing(s string) bool {
	return hasAny(s, modelMissingPhrases) || modelNotFound.Get().MatchString(s)
}

func isOverflowText(s string) bool {
	// An output cap problem alone ("max_tokens is too large") is a bad
	// request, not an overflow; Anthropic's "input length and max_tokens
	// exceed context limit" names the context and is one.
	if strings.Contains(s, "max_tokens") && !strings.Contains(s, "context") && !strings.Contains(s, "prompt is too long") {
		return false
	}
	return hasAny(s, overflowPhrases)
}

var limitPatterns = lazy.Of(buildLimitPatterns)

func buildLimitPatterns() []*regexp.Regexp {
	return compileAll(
		`maximum context length is (\d+)`,
		`context (?:length|window|size) (?:of|is) (\d+)`,
		`(\d+) token context`,
		`>\s*(\d+) maximum`,
		`exceed context limit: \d+ \+ \d+ > (\d+)`,
		`maximum number of tokens allowed \((\d+)\)`,
		`max_model_len[^0-9]{0,20}(\d+)`,
		`limit(?: of)? (\d+) tokens`,
	)
}

func parseContextLimit(s string) int {
	for _, re := range limitPatterns.Get() {
		if m := re.FindStringSubmatch(s); m != nil {
			if n, err := strconv.Atoi(m[1]); err == nil && n > 0 {
				return n
			}
		}
	}
	return 0
}
