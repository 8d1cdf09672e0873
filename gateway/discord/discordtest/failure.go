package discordtest

import (
	"fmt"
	"math"
	"net/http"
	"path"
	"strconv"
	"strings"
	"time"
)

// Failure is an answer the fake gives instead of serving a REST call:
// Discord's refusals, rate limits and outages.
type Failure struct {
	Status  int
	Code    int // Discord's JSON error code
	Message string
	// RetryAfter is a 429's wait: the body's retry_after (seconds, a
	// float), the Retry-After header (whole seconds) and the bucket's
	// X-RateLimit-Reset-After.
	RetryAfter time.Duration
	// HeaderOnly makes a 429 look like Cloudflare's: an HTML body and only
	// the Retry-After header.
	HeaderOnly bool
	// Times is how many calls it answers; 0 means one.
	Times int
	// Enforce makes a 429 for a message written to a channel (a POST to
	// /channels/{id}/messages, a PATCH of one of its messages) hold the
	// channel as Discord's bucket does: until RetryAfter has passed,
	// every such write to it is answered 429 with the time left, and
	// counted by EarlyRetries.
	Enforce bool
}

// RateLimit is a 429 with retry_after d.
func RateLimit(d time.Duration) Failure {
	return Failure{Status: http.StatusTooManyRequests, Message: "You are being rate limited.", RetryAfter: d}
}

// CannotMessageUser is Discord's 403 50007: the user does not accept
// direct messages from the bot (or blocked it).
func CannotMessageUser() Failure {
	return Failure{Status: http.StatusForbidden, Code: 50007, Message: "Cannot send messages to this user"}
}

// MissingAccess is Discord's 403 50001: the bot cannot see the channel.
func MissingAccess() Failure {
	return Failure{Status: http.StatusForbidden, Code: 50001, Message: "Missing Access"}
}

// UnknownChannel is Discord's 404 10003.
func UnknownChannel() Failure {
	return Failure{Status: http.StatusNotFound, Code: 10003, Message: "Unknown Channel"}
}

// ServerError is a 500.
func ServerError() Failure {
	return Failure{Status: http.StatusInternalServerError, Message: "500: Internal Server Error"}
}

type failure struct {
	method, path string
	f            Failure
	left         int
}

// Fail makes the fake answer the next calls to method and path (without
// /api/v9, e.g. "/channels/42/messages"; a pattern of path.Match, so
// "/channels/*/messages" is any channel's; "" matches any) with f.
func (s *Server) Fail(method, path string, f Failure) {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := f.Times
	if n <= 0 {
		n = 1
	}
	s.failures = append(s.failures, failure{method: method, path: path, f: f, left: n})
}

// takeFailureLocked returns the scripted failure for a call, if any.
func (s *Server) takeFailureLocked(method, path string) (Failure, bool) {
	for i := range s.failures {
		fl := &s.failures[i]
		if fl.left == 0 || !matches(fl.method, fl.path, method, path) {
			continue
		}
		fl.left--
		return fl.f, true
	}
	return Failure{}, false
}

func (f Failure) write(w http.ResponseWriter) {
	if f.Status != http.StatusTooManyRequests {
		apiError(w, f.Status, f.Code, f.Message)
		return
	}
	secs := f.RetryAfter.Seconds()
	h := w.Header()
	h.Set("Retry-After", strconv.Itoa(int(math.Ceil(secs))))
	if f.HeaderOnly {
		h.Set("Content-Type", "text/html")
		w.WriteHeader(f.Status)
		fmt.Fprint(w, "<html><body>error code: 1015</body></html>")
		return
	}
	h.Set("X-RateLimit-Limit", "5")
	h.Set("X-RateLimit-Remaining", "0")
	h.Set("X-RateLimit-Reset-After", strconv.FormatFloat(secs, 'f', 3, 64))
	h.Set("X-RateLimit-Bucket", "fake-bucket")
	h.Set("X-RateLimit-Scope", "user")
	writeJSON(w, f.Status, map[string]any{"message": f.Message, "retry_after": secs, "global": false, "code": 0})
}

// matches says whether a call (method, p) is one a script names: its
// method ("" any) and a path.Match pattern of its path ("" any).
func matches(method, pattern, callMethod, p string) bool {
	if method != "" && method != callMethod {
		return false
	}
	if pattern == "" {
		return true
	}
	ok, err := path.Match(pattern, p)
	return err == nil && ok
}

// writtenChannel is the channel a call writes a message to: a POST to
// /channels/{id}/messages or a PATCH of /channels/{id}/messages/{mid};
// "" for other calls.
func writtenChannel(method, p string) string {
	parts := strings.Split(strings.Trim(p, "/"), "/")
	switch {
	case len(parts) < 3 || parts[0] != "channels" || parts[2] != "messages":
		return ""
	case method == http.MethodPost && len(parts) == 3, method == http.MethodPatch && len(parts) == 4:
		return parts[1]
	}
	return ""
}

// startLimitLocked holds a channel the call wrote to for d: an enforced
// 429.
func (s *Server) startLimitLocked(method, p string, d time.Duration) {
	if ch := writtenChannel(method, p); ch != "" {
		s.limitedUntil[ch] = time.Now().Add(d)
	}
}

// rateLimitedLocked refuses a write to a channel whose enforced rate
// limit has not passed, with the time left, and counts it.
func (s *Server) rateLimitedLocked(method, p string) (Failure, bool) {
	ch := writtenChannel(method, p)
	if ch == "" {
		return Failure{}, false
	}
	left := time.Until(s.limitedUntil[ch])
	if left <= 0 {
		return Failure{}, false
	}
	s.early++
	return RateLimit(left), true
}

// EarlyRetries counts the writes to a channel answered 429 because an
// enforced rate limit (Failure.Enforce) had not passed yet.
func (s *Server) EarlyRetries() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.early
}
