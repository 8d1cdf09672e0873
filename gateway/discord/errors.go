package discord

import (
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/hermes-go/hermes/gateway"
)

// permanentCode reports Discord's JSON error codes that mean a send can
// never succeed.
func permanentCode(code int) bool {
	switch code {
	case 10003, // unknown channel
		10008, // unknown message
		50001, // missing access
		50005, // cannot edit a message authored by another user
		50007, // cannot send messages to this user
		50013, // missing permissions
		40005: // request entity too large
		return true
	}
	return false
}

// classify turns a failed REST call into the gateway's terms: a
// *gateway.SendError when Discord answered, the error itself (wrapped)
// when it did not.
func classify(op string, err error, a *answer) error {
	if a.status == 0 {
		return fmt.Errorf("discord: %s: %w", op, err)
	}
	var body struct {
		Code       int      `json:"code"`
		Message    string   `json:"message"`
		RetryAfter *float64 `json:"retry_after"`
		Global     bool     `json:"global"`
	}
	_ = json.Unmarshal(a.body, &body)
	what := body.Message
	if what == "" {
		what = strings.TrimSpace(http.StatusText(a.status))
	}
	if body.Code != 0 {
		what = fmt.Sprintf("%s (code %d)", what, body.Code)
	}
	se := &gateway.SendError{Status: a.status, Err: fmt.Errorf("discord: %s: HTTP %d: %s", op, a.status, what)}
	switch {
	case a.status == http.StatusTooManyRequests:
		se.RetryAfter = retryAfter(body.RetryAfter, a.header)
	case permanentCode(body.Code), a.status == http.StatusUnauthorized, a.status == http.StatusForbidden,
		a.status == http.StatusNotFound, a.status == http.StatusRequestEntityTooLarge:
		se.Permanent = true
	}
	return se
}

// retryAfter reads a 429's wait: the body's retry_after (seconds, a
// float), else the Retry-After header, else the bucket's reset; at least
// a second when Discord said nothing usable.
func retryAfter(body *float64, h http.Header) time.Duration {
	if body != nil && *body > 0 {
		return seconds(*body)
	}
	for _, name := range []string{"Retry-After", "X-RateLimit-Reset-After"} {
		if v, err := strconv.ParseFloat(strings.TrimSpace(h.Get(name)), 64); err == nil && v > 0 {
			return seconds(v)
		}
	}
	return time.Second
}

func seconds(v float64) time.Duration {
	return time.Duration(math.Ceil(v * float64(time.Second)))
}
