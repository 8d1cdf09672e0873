package telegram

import (
	"context"
	"errors"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-telegram/bot"
	"github.com/go-telegram/bot/models"

	"github.com/hermes-go/hermes/gateway"
)

// click hands a button press to the handler. Telegram shows a spinner
// on the button until the press is answered, so every press is answered
// once: by Click's Answer when the handler calls it within
// AnswerTimeout, otherwise empty when that time is up (or when Run ends).
func (r *run) click(ctx context.Context, q *models.CallbackQuery) {
	c := gateway.Click{Platform: r.a.Platform(), UserID: strconv.FormatInt(q.From.ID, 10), Data: q.Data}
	switch {
	case q.Message.Message != nil:
		c.Chat = chatRef(q.Message.Message)
		c.MessageID = strconv.Itoa(q.Message.Message.ID)
	case q.Message.InaccessibleMessage != nil:
		c.Chat = gateway.ChatRef{ChatID: strconv.FormatInt(q.Message.InaccessibleMessage.Chat.ID, 10)}
		c.MessageID = strconv.Itoa(q.Message.InaccessibleMessage.MessageID)
	}
	c.Answer = r.answers.add(q.ID)
	r.h.Click(ctx, c)
}

// answers are the presses of one Run waiting for their answer.
type answers struct {
	ctx context.Context // Run's
	a   *Adapter
	wg  sync.WaitGroup
}

func newAnswers(ctx context.Context, a *Adapter) *answers { return &answers{ctx: ctx, a: a} }

// add starts the wait for one press and returns its Answer.
func (as *answers) add(queryID string) func(context.Context, string) error {
	var claimed atomic.Bool
	done := make(chan struct{})
	answer := func(ctx context.Context, text string) error {
		if !claimed.CompareAndSwap(false, true) {
			return errors.New("telegram: the button press was already answered")
		}
		close(done)
		ctx, cancel := context.WithTimeout(ctx, callTimeout)
		defer cancel()
		_, err := as.a.bot.AnswerCallbackQuery(ctx, &bot.AnswerCallbackQueryParams{CallbackQueryID: queryID, Text: text})
		return sendError("answerCallbackQuery", err)
	}
	as.wg.Add(1)
	go func() {
		defer as.wg.Done()
		t := time.NewTimer(as.a.o.AnswerTimeout)
		defer t.Stop()
		select {
		case <-done:
			return
		case <-t.C:
		case <-as.ctx.Done():
		}
		if !claimed.CompareAndSwap(false, true) {
			return
		}
		ctx, cancel := context.WithTimeout(context.WithoutCancel(as.ctx), 10*time.Second)
		defer cancel()
		if _, err := as.a.bot.AnswerCallbackQuery(ctx, &bot.AnswerCallbackQueryParams{CallbackQueryID: queryID}); err != nil {
			as.a.log.Warn("telegram button press not answered", "err", err)
		}
	}()
	return answer
}

// wait returns once every press of the Run is answered.
func (as *answers) wait() { as.wg.Wait() }
