package discord

import (
	"context"
	"errors"
	"sync/atomic"

	"github.com/bwmarrin/discordgo"

	"github.com/hermes-go/hermes/gateway"
)

// onInteraction hands an interaction to the handler: a slash command
// from the menu (see onCommand) or a press of one of the bot's buttons.
func (a *Adapter) onInteraction(_ *discordgo.Session, ic *discordgo.InteractionCreate) {
	h, ctx := a.handler()
	if h == nil || ic.Interaction == nil {
		return
	}
	switch ic.Type {
	case discordgo.InteractionApplicationCommand:
		a.onCommand(ctx, h, ic.Interaction)
	case discordgo.InteractionMessageComponent:
		a.onClick(ctx, h, ic.Interaction)
	}
}

// onClick hands a press of one of the bot's buttons to the handler
// (INTERACTION_CREATE of a message component). Discord wants an answer
// within three seconds, so the press is acknowledged first, as a deferred
// update (type 6: the message stays as it is, the button stops spinning);
// Click.Answer then sends an ephemeral followup only the clicker sees.
func (a *Adapter) onClick(ctx context.Context, h gateway.Handler, in *discordgo.Interaction) {
	user := in.User
	if in.Member != nil && in.Member.User != nil {
		user = in.Member.User
	}
	if user == nil {
		return
	}
	var ans answer
	ack := &discordgo.InteractionResponse{Type: discordgo.InteractionResponseDeferredMessageUpdate}
	if err := a.s.InteractionRespond(in, ack, a.call(ctx, &ans)...); err != nil {
		a.log.Warn("discord: acknowledging a button press failed", "interaction", in.ID,
			"err", classify("acknowledge a button press", err, &ans))
	}
	messageID := ""
	if in.Message != nil {
		messageID = in.Message.ID
	}
	h.Click(ctx, gateway.Click{
		Platform:  a.Platform(),
		Chat:      a.chat(ctx, in.ChannelID, in.GuildID),
		MessageID: messageID,
		UserID:    user.ID,
		Data:      in.MessageComponentData().CustomID,
		Answer:    a.answerer(in),
	})
}

// answerer returns a Click's Answer: an ephemeral followup to the
// acknowledged press (POST /webhooks/{application}/{token}, flags 64).
func (a *Adapter) answerer(in *discordgo.Interaction) func(context.Context, string) error {
	var used atomic.Bool
	return func(ctx context.Context, text string) error {
		if !used.CompareAndSwap(false, true) {
			return errors.New("discord: a button press was already answered")
		}
		params := &discordgo.WebhookParams{Content: text, Flags: discordgo.MessageFlagsEphemeral, AllowedMentions: noPings()}
		var ans answer
		if _, err := a.s.FollowupMessageCreate(in, true, params, a.call(ctx, &ans)...); err != nil {
			return classify("answer a button press", err, &ans)
		}
		return nil
	}
}
