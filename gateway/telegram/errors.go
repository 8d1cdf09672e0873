package telegram

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/go-telegram/bot"

	"github.com/hermes-go/hermes/gateway"
)

// sendError classifies a failed call once for the gateway: what Telegram
// answered becomes a *gateway.SendError (a 429's retry_after; a blocked,
// removed or unknown chat and every other refusal as permanent; a text
// whose entities do not parse; an edit that changes nothing), anything
// else (the network, a 5xx) stays a plain error the gateway retries.
func sendError(method string, err error) error {
	if err == nil {
		return nil
	}
	err = fmt.Errorf("telegram %s: %w", method, err)
	var tooMany *bot.TooManyRequestsError
	var migrated *bot.MigrateError
	switch {
	case errors.As(err, &tooMany):
		return &gateway.SendError{RetryAfter: time.Duration(max(tooMany.RetryAfter, 1)) * time.Second, Status: 429, Err: err}
	case errors.Is(err, bot.ErrorForbidden):
		return &gateway.SendError{Permanent: true, Status: 403, Err: err}
	case errors.Is(err, bot.ErrorUnauthorized):
		return &gateway.SendError{Permanent: true, Status: 401, Err: err}
	case errors.Is(err, bot.ErrorNotFound):
		return &gateway.SendError{Permanent: true, Status: 404, Err: err}
	case errors.As(err, &migrated):
		// The group became a supergroup with another id.
		return &gateway.SendError{Permanent: true, Status: 400, Err: err}
	case errors.Is(err, bot.ErrorBadRequest):
		d := strings.ToLower(err.Error())
		switch {
		case strings.Contains(d, "can't parse entities"):
			return &gateway.SendError{Format: true, Status: 400, Err: err}
		case strings.Contains(d, "message is not modified"):
			return &gateway.SendError{NotModified: true, Status: 400, Err: err}
		}
		// "chat not found", "message to edit not found", a text too long:
		// the same request fails the same way again.
		return &gateway.SendError{Permanent: true, Status: 400, Err: err}
	}
	return err
}
