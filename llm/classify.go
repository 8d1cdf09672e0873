package llm

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// MaxRetryAfter caps a provider-requested wait.
const MaxRetryAfter = 10 * time.Minute

const maxErrorBody = 4096

// ClassifyHTTP turns an HTTP error response into a ProviderError. It
// reads the provider's message from the usual JSON error shapes (OpenAI,
// Anthropic, OpenRouter) and the retry hint from retry-after-ms, then
// Retry-After.
func ClassifyHTTP(provider string, status int, header http.Header, body []byte) *ProviderError {
	if len(body) > maxErrorBody {
		body = body[:maxErrorBody]
	}
	msg, code := errorMessage(body)
	e := &ProviderError{StatusCode: status, Provider: provider, Body: string(body), Message: msg}
	if e.Message == "" {
		e.Message = http.StatusText(status)
	}
	e.RetryAfter = retryAfter(header)
	lower := strings.ToLower(msg + " " + code + " " + string(body))
	switch {
	case status == http.StatusRequestEntityTooLarge || isOverflowText(lower):
		e.Kind = ErrContextOverflow
		e.ContextLimit = parseContextLimit(lower)
	case status == http.StatusTooManyRequests:
		e.Kind = ErrRateLimit
	case status == http.StatusUnauthorized || status == http.StatusForbidden:
		e.Kind = ErrAuth
	case status == http.StatusRequestTimeout || status == http.StatusGatewayTimeout:
		e.Kind = ErrTimeout
	case status == 529 || status >= 500:
		e.Kind = ErrServer
	case status >= 400:
		e.Kind = ErrBadRequest
	default:
		e.Kind = ErrUnknown
	}
	return e
}

// ClassifyErr classifies a transport-level error (no HTTP status).
// Context cancellation is returned unchanged: it is an interrupt, not a
// provider failure.
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
	switch {
	case errors.Is(err, context.DeadlineExceeded) || (errors.As(err, &ne) && ne.Timeout()):
		e.Kind = ErrTimeout
	case errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.ECONNREFUSED) ||
		errors.Is(err, syscall.EPIPE) || isConnText(err.Error()):
		e.Kind = ErrConnection
	default:
		e.Kind = ErrUnknown
	}
	return e
}

func isConnText(s string) bool {
	s = strings.ToLower(s)
	for _, k := range []string{"connection reset", "connection refused", "unexpected eof", "broken pipe", "peer closed", "connection lost", "eof"} {
		if strings.Contains(s, k) {
			return true
		}
	}
	return false
}

var overflowPhrases = []string{
	"context_length_exceeded", "context length", "context window", "maximum context",
	"prompt is too long", "too many tokens", "reduce the length", "input is too long",
	"exceeds the context", "request too large", "string_above_max_length",
}

func isOverflowText(s string) bool {
	if strings.Contains(s, "max_tokens") && !strings.Contains(s, "context") && !strings.Contains(s, "prompt is too long") {
		return false
	}
	for _, p := range overflowPhrases {
		if strings.Contains(s, p) {
			return true
		}
	}
	return false
}

var limitPatterns = []*regexp.Regexp{
	regexp.MustCompile(`maximum context length is (\d+)`),
	regexp.MustCompile(`context (?:length|window) (?:of|is) (\d+)`),
	regexp.MustCompile(`(\d+) token context`),
	regexp.MustCompile(`>\s*(\d+) maximum`),
	regexp.MustCompile(`limit(?: of)? (\d+) tokens`),
}

func parseContextLimit(s string) int {
	for _, re := range limitPatterns {
		if m := re.FindStringSubmatch(s); m != nil {
			if n, err := strconv.Atoi(m[1]); err == nil && n > 0 {
				return n
			}
		}
	}
	return 0
}

func errorMessage(body []byte) (msg, code string) {
	var w struct {
		Error   json.RawMessage `json:"error"`
		Message string          `json:"message"`
	}
	if json.Unmarshal(body, &w) != nil {
		return strings.TrimSpace(string(body)), ""
	}
	var inner struct {
		Message string `json:"message"`
		Type    string `json:"type"`
		Code    any    `json:"code"`
	}
	if len(w.Error) > 0 && json.Unmarshal(w.Error, &inner) == nil {
		c := inner.Type
		if inner.Code != nil {
			if s, ok := inner.Code.(string); ok {
				c += " " + s
			}
		}
		return inner.Message, c
	}
	var s string
	if len(w.Error) > 0 && json.Unmarshal(w.Error, &s) == nil {
		return s, ""
	}
	return w.Message, ""
}

func retryAfter(h http.Header) time.Duration {
	if h == nil {
		return 0
	}
	var d time.Duration
	if v := h.Get("retry-after-ms"); v != "" {
		if ms, err := strconv.ParseFloat(v, 64); err == nil && ms > 0 {
			d = time.Duration(ms * float64(time.Millisecond))
		}
	}
	if d == 0 {
		if v := h.Get("Retry-After"); v != "" {
			if s, err := strconv.ParseFloat(v, 64); err == nil && s > 0 {
				d = time.Duration(s * float64(time.Second))
			} else if t, err := http.ParseTime(v); err == nil {
				d = time.Until(t)
			}
		}
	}
	if d < 0 {
		d = 0
	}
	return min(d, MaxRetryAfter)
}
