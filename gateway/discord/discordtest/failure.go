package discordtest

import (
	"fmt"
	"math"
	"net/http"
	"strconv"
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
// /api/v9, e.g. "/channels/42/messages"; "" matches any) with f.
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
		if fl.left == 0 || (fl.method != "" && fl.method != method) || (fl.path != "" && fl.path != path) {
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
