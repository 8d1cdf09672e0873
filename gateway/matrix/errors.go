package matrix

import (
	"errors"
	"fmt"
	"net/http"
	"time"

	"maunium.net/go/mautrix"

	"github.com/hermes-go/hermes/gateway"
)

// respError is the homeserver's error answer in err, if it gave one.
func respError(err error) (*mautrix.HTTPError, *mautrix.RespError) {
	var he mautrix.HTTPError
	if errors.As(err, &he) && he.RespError != nil {
		return &he, he.RespError
	}
	var re mautrix.RespError
	if errors.As(err, &re) {
		return nil, &re
	}
	return nil, nil
}

// refused says the access token itself is wrong: retrying cannot help.
func refused(err error) bool {
	_, re := respError(err)
	return re != nil && (re.ErrCode == mautrix.MUnknownToken.ErrCode || re.ErrCode == mautrix.MMissingToken.ErrCode)
}

// retryAfter is the wait the homeserver asked for (M_LIMIT_EXCEEDED's
// retry_after_ms, or a Retry-After header), if any.
func retryAfter(err error) time.Duration {
	he, re := respError(err)
	if re == nil || re.ErrCode != mautrix.MLimitExceeded.ErrCode && re.StatusCode != http.StatusTooManyRequests {
		return 0
	}
	if ms, ok := re.ExtraData["retry_after_ms"].(float64); ok && ms > 0 {
		return time.Duration(ms) * time.Millisecond
	}
	if he != nil && he.Response != nil {
		if s := he.Response.Header.Get("Retry-After"); s != "" {
			var n int
			if _, err := fmt.Sscanf(s, "%d", &n); err == nil && n > 0 {
				return time.Duration(n) * time.Second
			}
		}
	}
	return time.Second
}

// describe says in a line why a request failed, for State.Detail.
func describe(err error) string {
	_, re := respError(err)
	switch {
	case re == nil:
		return "cannot reach the homeserver: " + err.Error()
	case refused(err):
		return fmt.Sprintf("%d %s: the homeserver refused the access token", re.StatusCode, re.ErrCode)
	case retryAfter(err) > 0:
		return fmt.Sprintf("%d %s: rate limited, retry after %s", re.StatusCode, re.ErrCode, retryAfter(err))
	}
	return fmt.Sprintf("homeserver error %d %s: %s", re.StatusCode, re.ErrCode, re.Err)
}

// sendError classifies a failed send or edit: a rate limit holds the
// chat for retry_after_ms; M_FORBIDDEN (the bot was removed or may not
// speak), an unknown room or a refused token are for good; any other
// answer of the homeserver is a *SendError the gateway retries; a
// transport failure is returned as it is.
func sendError(op string, err error) error {
	he, re := respError(err)
	if re == nil {
		return fmt.Errorf("matrix %s: %w", op, err)
	}
	se := &gateway.SendError{Status: re.StatusCode, Err: fmt.Errorf("matrix %s: %w", op, err)}
	if he != nil && he.Response != nil {
		se.Status = he.Response.StatusCode
	}
	switch {
	case retryAfter(err) > 0:
		se.RetryAfter = retryAfter(err)
	case re.ErrCode == mautrix.MForbidden.ErrCode, re.ErrCode == mautrix.MNotFound.ErrCode && op != "edit",
		refused(err), re.ErrCode == "M_TOO_LARGE":
		se.Permanent = true
	}
	return se
}
