package slack

import (
	"context"
	"encoding/json"
	"errors"
	"sync/atomic"

	slackapi "github.com/slack-go/slack"

	"github.com/hermes-go/hermes/gateway"
)

func (a *Adapter) onInteractive(ctx context.Context, h gateway.Handler, payload json.RawMessage) {
	var ic slackapi.InteractionCallback
	if err := json.Unmarshal(payload, &ic); err != nil {
		a.log.Warn("unreadable interaction", "err", err)
		return
	}
	a.onInteraction(ctx, h, ic)
}

// onInteraction hands each button press of a block_actions interaction to
// h. The Click's MessageID is the ts of the message holding the button,
// the id Send returned for it.
func (a *Adapter) onInteraction(ctx context.Context, h gateway.Handler, ic slackapi.InteractionCallback) {
	if ic.Type != slackapi.InteractionTypeBlockActions {
		a.log.Info("interaction not handled", "type", ic.Type)
		return
	}
	channel := ic.Channel.ID
	if channel == "" {
		channel = ic.Container.ChannelID
	}
	thread := ic.Container.ThreadTs
	if thread == "" && ic.Message.ThreadTimestamp != ic.Message.Timestamp {
		thread = ic.Message.ThreadTimestamp
	}
	chat := gateway.ChatRef{ChatID: channel, ThreadID: thread}
	for _, act := range ic.ActionCallback.BlockActions {
		if act.Type != slackapi.ActionType("button") {
			continue
		}
		h.Click(ctx, gateway.Click{
			Platform:  a.Platform(),
			Chat:      chat,
			MessageID: ic.Container.MessageTs,
			UserID:    ic.User.ID,
			Data:      act.Value,
			Answer:    a.answerer(chat, ic.User.ID),
		})
	}
}

// answerer replies to the person who clicked only: an ephemeral message
// in the channel (and thread) of the button. It answers once; a failed
// answer may be tried again.
func (a *Adapter) answerer(chat gateway.ChatRef, user string) func(context.Context, string) error {
	var answered atomic.Bool
	return func(ctx context.Context, text string) error {
		if !answered.CompareAndSwap(false, true) {
			return errors.New("slack: the click was already answered")
		}
		opts := []slackapi.MsgOption{slackapi.MsgOptionText(text, true)}
		if chat.ThreadID != "" {
			opts = append(opts, slackapi.MsgOptionTS(chat.ThreadID))
		}
		if _, err := a.api.PostEphemeralContext(ctx, chat.ChatID, user, opts...); err != nil {
			answered.Store(false)
			return classify("chat.postEphemeral", err)
		}
		return nil
	}
}
