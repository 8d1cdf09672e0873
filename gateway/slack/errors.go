package slack

import (
	"errors"
	"fmt"
	"net/http"
	"time"

	slackapi "github.com/slack-go/slack"

	"github.com/hermes-go/hermes/gateway"
)

// permanentCode reports Slack's error codes that no retry can get past:
// the channel is gone or closed to the bot, or the bot's token no longer
// works.
func permanentCode(code string) bool {
	switch code {
	case "channel_not_found", "not_in_channel", "is_archived", "account_inactive",
		"invalid_auth", "not_authed", "token_revoked", "token_expired",
		"missing_scope", "restricted_action", "message_not_found",
		"cant_update_message", "edit_window_closed", "user_not_in_channel",
		"team_access_not_granted", "ekm_access_denied":
		return true
	}
	return false
}

// formatCode reports Slack's error codes for blocks or text it cannot
// take as formatted.
func formatCode(code string) bool { return code == "invalid_blocks" || code == "invalid_blocks_format" }

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
		case permanentCode(se.Err):
			return &gateway.SendError{Permanent: true, Status: http.StatusOK, Err: wrapped}
		case formatCode(se.Err):
			return &gateway.SendError{Format: true, Status: http.StatusOK, Err: wrapped}
		}
	}
	return wrapped
}
