package slack

import (
	"errors"
	"fmt"
	"net/http"
	"time"

	slackapi "github.com/slack-go/slack"

	"github.com/hermes-go/hermes/gateway"
)

// Slack's error codes that no retry can get past: the channel is gone or
// closed to the bot, or the bot's token no longer works.
var permanentCodes = map[string]bool{
	"channel_not_found": true, "not_in_channel": true, "is_archived": true, "account_inactive": true,
	"invalid_auth": true, "not_authed": true, "token_revoked": true, "token_expired": true,
	"missing_scope": true, "restricted_action": true, "message_not_found": true,
	"cant_update_message": true, "edit_window_closed": true, "user_not_in_channel": true,
	"team_access_not_granted": true, "ekm_access_denied": true,
}

// Slack's error codes for blocks or text it cannot take as formatted.
var formatCodes = map[string]bool{"invalid_blocks": true, "invalid_blocks_format": true}

// classify turns a Web API failure into a *gateway.SendError when Slack
// answered with a rate limit, a refusal or a formatting error; other
// failures (transport, 5xx, other error codes) stay plain errors.
func classify(method string, err error) error {
	wrapped := fmt.Errorf("slack %s: %w", method, err)
	var rl *slackapi.RateLimitedError
	if errors.As(err, &rl) {
		return &gateway.SendError{RetryAfter: max(rl.RetryAfter, time.Second), Status: http.StatusTooManyRequests, Err: wrapped}
	}
	var sc slackapi.StatusCodeError
	if errors.As(err, &sc) {
		switch {
		case sc.Code == http.StatusTooManyRequests:
			// A 429 without Retry-After: wait the least Slack ever asks.
			return &gateway.SendError{RetryAfter: time.Second, Status: sc.Code, Err: wrapped}
		case sc.Code >= 400 && sc.Code < 500:
			return &gateway.SendError{Permanent: true, Status: sc.Code, Err: wrapped}
		}
		return wrapped
	}
	var se slackapi.SlackErrorResponse
	if errors.As(err, &se) {
		switch {
		case permanentCodes[se.Err]:
			return &gateway.SendError{Permanent: true, Status: http.StatusOK, Err: wrapped}
		case formatCodes[se.Err]:
			return &gateway.SendError{Format: true, Status: http.StatusOK, Err: wrapped}
		}
	}
	return wrapped
}
