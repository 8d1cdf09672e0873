package telegram

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/go-telegram/bot"
	"github.com/go-telegram/bot/models"

	"github.com/hermes-go/hermes/gateway"
	"github.com/hermes-go/hermes/gateway/internal/backoff"
)

// run is one call of Run: the handler, the bot's identity and the last
// state reported.
type run struct {
	a       *Adapter
	h       gateway.Handler
	me      *models.User
	answers *answers
	last    *gateway.State
}

// Run connects (long polling, or the webhook when WebhookURL is set) and
// hands updates to h until ctx ends. It returns an error only when
// Telegram refuses the token or the webhook cannot listen.
func (a *Adapter) Run(ctx context.Context, h gateway.Handler) error {
	if !a.running.CompareAndSwap(false, true) {
		return errors.New("telegram: Run is already running")
	}
	defer a.running.Store(false)
	r := &run{a: a, h: h}
	r.answers = newAnswers(ctx, a)
	defer r.answers.wait()
	defer func() {
		if ctx.Err() != nil {
			r.report(false, "stopped")
		}
	}()

	me, err := r.login(ctx)
	if err != nil || me == nil {
		return err
	}
	r.me = me
	if a.webhook != nil {
		return r.serveWebhook(ctx)
	}
	return r.poll(ctx)
}

// login asks getMe who the bot is, retrying until it answers; a refused
// token ends Run. It returns nil, nil when ctx ends first.
func (r *run) login(ctx context.Context) (*models.User, error) {
	b := r.backoff()
	for {
		me, err := r.a.bot.GetMe(ctx)
		switch {
		case err == nil:
			return me, nil
		case ctx.Err() != nil:
			return nil, nil
		case refused(err):
			r.report(false, describe(err))
			return nil, fmt.Errorf("telegram: the Bot API refused the token: %w", err)
		}
		r.report(false, describe(err))
		r.a.log.Warn("telegram getMe failed", "err", err)
		if !b.Wait(ctx, 0) {
			return nil, nil
		}
	}
}

// report tells the handler about a change of the connection.
func (r *run) report(connected bool, detail string) {
	if r.last != nil && r.last.Connected == connected && r.last.Detail == detail {
		return
	}
	s := gateway.State{Platform: r.a.Platform(), Connected: connected, Detail: detail, Since: r.a.o.Now()}
	r.last = &s
	if connected {
		r.a.log.Info("telegram connected", "as", detail)
	} else {
		r.a.log.Warn("telegram not connected", "reason", detail)
	}
	r.h.State(s)
}

func (r *run) username() string { return "@" + r.me.Username }

// refused says the token itself is wrong: retrying cannot help.
func refused(err error) bool {
	return errors.Is(err, bot.ErrorUnauthorized) || errors.Is(err, bot.ErrorNotFound)
}

// describe says in a line why a request failed, for State.Detail.
func describe(err error) string {
	var tooMany *bot.TooManyRequestsError
	switch {
	case errors.Is(err, bot.ErrorConflict) && strings.Contains(err.Error(), "webhook"):
		return "409 conflict: a webhook is set for this token"
	case errors.Is(err, bot.ErrorConflict):
		return "409 conflict: another getUpdates is running with this token"
	case errors.As(err, &tooMany):
		return fmt.Sprintf("429 rate limited: retry after %ds", tooMany.RetryAfter)
	case errors.Is(err, bot.ErrorUnauthorized):
		return "401 unauthorized: Telegram refused the bot token"
	case errors.Is(err, bot.ErrorNotFound):
		return "404 not found: Telegram refused the bot token"
	case errors.Is(err, bot.ErrorBadRequest), errors.Is(err, bot.ErrorForbidden),
		strings.Contains(err.Error(), "error response from telegram"):
		return "Bot API error: " + err.Error()
	}
	return "cannot reach the Bot API: " + err.Error()
}

// backoff is the wait between attempts: Backoff, doubled after each
// failure up to MaxBackoff, at least Telegram's retry_after.
func (r *run) backoff() *backoff.Backoff { return backoff.New(r.a.o.Backoff, r.a.o.MaxBackoff) }

// retryAfter is the wait Telegram asked for in a 429, if any.
func retryAfter(err error) time.Duration {
	var tooMany *bot.TooManyRequestsError
	if errors.As(err, &tooMany) {
		return time.Duration(tooMany.RetryAfter) * time.Second
	}
	return 0
}
