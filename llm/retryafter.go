package llm

import (
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/hermes-go/hermes/internal/lazyre"
)

// retryWait is the wait a failed response asks for, capped at
// MaxRetryAfter: retry-after-ms, else Retry-After (seconds or an HTTP
// date); for a rate limit without either, the X-RateLimit-Reset* headers,
// else a "try again in 1.5s" phrase of the message.
func retryWait(h http.Header, text string, kind ErrorKind, now time.Time) time.Duration {
	d := retryAfter(h, now)
	if d == 0 && kind == ErrRateLimit {
		d = rateLimitReset(h, now)
	}
	if d == 0 && kind == ErrRateLimit {
		d = retryHint(text)
	}
	return min(d, MaxRetryAfter)
}

func retryAfter(h http.Header, now time.Time) time.Duration {
	if v := h.Get("retry-after-ms"); v != "" {
		if ms, err := strconv.ParseFloat(v, 64); err == nil && ms > 0 {
			return time.Duration(ms * float64(time.Millisecond))
		}
	}
	if v := h.Get("Retry-After"); v != "" {
		if s, err := strconv.ParseFloat(v, 64); err == nil && s > 0 {
			return time.Duration(s * float64(time.Second))
		}
		if t, err := http.ParseTime(v); err == nil {
			return max(t.Sub(now), 0)
		}
	}
	return 0
}

// rateLimitHeaders say when a rate limit resets: OpenAI's (and Groq's)
// per-limit durations ("6m0s", "1s", "20ms") and OpenRouter's epoch
// milliseconds.
var rateLimitHeaders = []string{"X-Ratelimit-Reset-Requests", "X-Ratelimit-Reset-Tokens", "X-Ratelimit-Reset"}

// rateLimitReset reads the X-RateLimit-Reset* headers. A 429 does not say
// which limit it hit, so the latest reset is the one that is sure to have
// passed.
func rateLimitReset(h http.Header, now time.Time) time.Duration {
	var longest time.Duration
	for _, k := range rateLimitHeaders {
		if v := strings.TrimSpace(h.Get(k)); v != "" {
			longest = max(longest, resetValue(v, now))
		}
	}
	return longest
}

// resetValue reads one reset header: a Go-style duration, an RFC 3339
// time, or a number, taken as epoch milliseconds or seconds when it is
// that large and as seconds to wait otherwise.
func resetValue(v string, now time.Time) time.Duration {
	if d, err := time.ParseDuration(v); err == nil {
		return d
	}
	if t, err := time.Parse(time.RFC3339, v); err == nil {
		return t.Sub(now)
	}
	n, err := strconv.ParseFloat(v, 64)
	if err != nil || n <= 0 {
		return 0
	}
	switch {
	case n >= 1e12:
		return time.UnixMilli(int64(n)).Sub(now)
	case n >= 1e9:
		return time.Unix(int64(n), 0).Sub(now)
	}
	return time.Duration(n * float64(time.Second))
}

var tryAgainIn = lazyre.New(`try again in ((?:\d+(?:\.\d+)?(?:ms|h|m|s))+)`)

// retryHint reads OpenAI's "Please try again in 1.414s." phrase.
func retryHint(text string) time.Duration {
	m := tryAgainIn.Get().FindStringSubmatch(text)
	if m == nil {
		return 0
	}
	d, err := time.ParseDuration(m[1])
	if err != nil || d <= 0 {
		return 0
	}
	return d
}
