package telegram

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/go-telegram/bot"
	"github.com/go-telegram/bot/models"
)

// allowedUpdates are the update kinds the gateway reads.
var allowedUpdates = []string{"message", "callback_query"}

// poll is long polling. An update is confirmed (by asking for the next
// offset) only once the handler took it: Message returned nil, or Click
// returned. The next offset is saved in KV after each update, so a new
// process resumes where this one stopped. Connected means the last
// getUpdates succeeded; each session starts with a getUpdates that
// Telegram answers at once, so the state is known without waiting out a
// long poll. After a 409, though, an empty quick answer proves nothing
// (Telegram ends whichever poll is older, so two pollers each succeed now
// and then): the conflict stays the state until updates arrive or a long
// poll has run its course.
func (r *run) poll(ctx context.Context) error {
	offset := r.loadOffset(ctx)
	b := r.backoff()
	webhookDeleted := false
	connected, conflicted := false, false
	for ctx.Err() == nil {
		if !webhookDeleted {
			if _, err := r.a.bot.DeleteWebhook(ctx, &bot.DeleteWebhookParams{}); err != nil {
				if ctx.Err() != nil {
					return nil
				}
				r.fail(err)
				b.Wait(ctx, retryAfter(err))
				continue
			}
			webhookDeleted = true
		}
		timeout := r.a.o.PollTimeout
		if !connected {
			timeout = 0
		}
		updates, err := r.a.getUpdates(ctx, offset, timeout)
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			if refused(err) {
				r.report(false, describe(err))
				return fmt.Errorf("telegram: the Bot API refused the token: %w", err)
			}
			if errors.Is(err, bot.ErrorConflict) {
				conflicted = true
				webhookDeleted = !strings.Contains(err.Error(), "webhook")
			}
			connected = false
			r.fail(err)
			b.Wait(ctx, retryAfter(err))
			continue
		}
		connected = true
		if !conflicted || timeout > 0 || len(updates) > 0 {
			conflicted = false
			r.report(true, r.username())
		}
		handled := true
		for _, u := range updates {
			if err := r.handle(ctx, u); err != nil {
				if ctx.Err() == nil {
					r.a.log.Error("telegram update not taken; Telegram will send it again", "update_id", u.ID, "err", err)
				}
				handled = false
				break
			}
			offset = u.ID + 1
			r.saveOffset(ctx, offset)
		}
		if handled {
			b.Reset()
		} else {
			b.Wait(ctx, 0)
		}
	}
	return nil
}

func (r *run) fail(err error) {
	r.a.log.Warn("telegram request failed", "err", err)
	r.report(false, describe(err))
}

func (r *run) offsetKey() string { return fmt.Sprintf("telegram:%d:offset", r.me.ID) }

// loadOffset reads the saved offset; without one (or when the store
// fails) it starts from Telegram's own record of what was confirmed.
func (r *run) loadOffset(ctx context.Context) int64 {
	v, ok, err := r.a.kv.Get(ctx, r.offsetKey())
	if err != nil {
		r.a.log.Error("telegram offset not read; starting from the first unconfirmed update", "err", err)
		return 0
	}
	if !ok {
		return 0
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		r.a.log.Error("telegram offset unreadable; starting from the first unconfirmed update", "value", v)
		return 0
	}
	return n
}

// saveOffset stores the next offset. A failure is logged, not fatal:
// the next process would be handed the update again and the gateway's
// deduplication drops it.
func (r *run) saveOffset(ctx context.Context, offset int64) {
	if err := r.a.kv.Set(context.WithoutCancel(ctx), r.offsetKey(), strconv.FormatInt(offset, 10)); err != nil {
		r.a.log.Error("telegram offset not saved", "offset", offset, "err", err)
	}
}

// getUpdates is the one call the adapter makes without the library: the
// library only calls it from its own polling loop, which confirms an
// update before its handler has run and swallows the errors. Errors
// carry the library's error values, so one classification serves both.
func (a *Adapter) getUpdates(ctx context.Context, offset int64, timeout time.Duration) ([]*models.Update, error) {
	body, err := json.Marshal(map[string]any{
		"offset":          offset,
		"timeout":         int(timeout / time.Second),
		"allowed_updates": allowedUpdates,
	})
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, timeout+pollGrace)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, a.api+"/bot"+a.o.Token+"/getUpdates", bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("getUpdates: %w", a.redact(err))
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := a.client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("getUpdates: %w", a.redact(err))
	}
	defer resp.Body.Close()
	var answer struct {
		OK          bool            `json:"ok"`
		Result      json.RawMessage `json:"result"`
		ErrorCode   int             `json:"error_code"`
		Description string          `json:"description"`
		Parameters  struct {
			RetryAfter int `json:"retry_after"`
		} `json:"parameters"`
	}
	raw, err := io.ReadAll(io.LimitReader(resp.Body, 64<<20))
	if err != nil {
		return nil, fmt.Errorf("getUpdates: read answer: %w", a.redact(err))
	}
	if err := json.Unmarshal(raw, &answer); err != nil {
		return nil, fmt.Errorf("getUpdates: HTTP %d, not a Bot API answer: %.200q", resp.StatusCode, raw)
	}
	if !answer.OK {
		return nil, apiError("getUpdates", answer.ErrorCode, answer.Description, answer.Parameters.RetryAfter)
	}
	var updates []*models.Update
	if err := json.Unmarshal(answer.Result, &updates); err != nil {
		return nil, fmt.Errorf("getUpdates: decode updates: %w", err)
	}
	return updates, nil
}

// apiError turns an error answer into the error the library would have
// returned for it.
func apiError(method string, code int, description string, retryAfter int) error {
	switch code {
	case http.StatusTooManyRequests:
		return &bot.TooManyRequestsError{Message: fmt.Sprintf("%s, %s", bot.ErrorTooManyRequests, description), RetryAfter: retryAfter}
	case http.StatusConflict:
		return fmt.Errorf("%w, %s", bot.ErrorConflict, description)
	case http.StatusUnauthorized:
		return fmt.Errorf("%w, %s", bot.ErrorUnauthorized, description)
	case http.StatusForbidden:
		return fmt.Errorf("%w, %s", bot.ErrorForbidden, description)
	case http.StatusBadRequest:
		return fmt.Errorf("%w, %s", bot.ErrorBadRequest, description)
	case http.StatusNotFound:
		return fmt.Errorf("%w, %s", bot.ErrorNotFound, description)
	}
	return fmt.Errorf("error response from telegram for method %s, %d %s", method, code, description)
}

// redact takes the token out of an error's URL.
func (a *Adapter) redact(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		ue.URL = strings.ReplaceAll(ue.URL, a.o.Token, "***")
	}
	return err
}
