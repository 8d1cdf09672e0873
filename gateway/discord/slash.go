package discord

import (
	"context"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/bwmarrin/discordgo"

	"github.com/hermes-go/hermes/gateway"
)

// echoWait is the longest a message to a channel waits for the echo of a
// slash command used there: Discord drops an interaction not answered
// within three seconds, so after that there is no echo to wait for.
const echoWait = 3 * time.Second

// onCommand hands a slash command from the menu to the handler as the
// message "/name text" and answers the interaction: Discord shows "the
// application did not respond" unless it is answered within three
// seconds, so the answer does not wait for the gateway's reply. It is a
// message echoing the command as typed, visible to the channel, or, when
// the gateway did not take the command, an ephemeral one saying so.
func (a *Adapter) onCommand(ctx context.Context, h gateway.Handler, in *discordgo.Interaction) {
	user := in.User
	name := ""
	if in.Member != nil && in.Member.User != nil {
		user = in.Member.User
		name = in.Member.Nick
	}
	if user == nil {
		return
	}
	if name == "" {
		name = user.GlobalName
	}
	if name == "" {
		name = user.Username
	}
	typed := commandText(in.ApplicationCommandData())
	msg := gateway.Inbound{
		Platform:  a.Platform(),
		Chat:      a.chat(ctx, in.ChannelID, in.GuildID),
		ChatType:  gateway.DM,
		MessageID: "interaction:" + in.ID,
		UserID:    user.ID,
		UserName:  name,
		Text:      typed,
		Addressed: true,
	}
	if in.GuildID != "" {
		msg.ChatType = gateway.Group
	}

	// What the gateway sends to the channel from now on waits for the
	// echo, so the command shows above its answer.
	done := a.echoes.begin(in.ChannelID)
	defer done()
	resp := &discordgo.InteractionResponse{
		Type: discordgo.InteractionResponseChannelMessageWithSource,
		Data: &discordgo.InteractionResponseData{Content: cut(escapeMarkdown(typed)), AllowedMentions: noPings()},
	}
	if err := h.Message(ctx, msg); err != nil {
		a.log.Error("discord: the gateway did not take a slash command", "interaction", in.ID, "command", typed, "err", err)
		resp.Data = &discordgo.InteractionResponseData{
			Content: cut("could not take this command: " + err.Error()),
			Flags:   discordgo.MessageFlagsEphemeral,
		}
	}
	var ans answer
	if err := a.s.InteractionRespond(in, resp, a.call(ctx, &ans)...); err != nil {
		a.log.Warn("discord: answering a slash command failed", "interaction", in.ID,
			"err", classify("answer a slash command", err, &ans))
	}
}

// commandText is a slash command as the person typed it: "/name", and
// the text option's value after a space.
func commandText(d discordgo.ApplicationCommandInteractionData) string {
	text := "/" + d.Name
	if o := d.GetOption(textOption); o != nil {
		if v, ok := o.Value.(string); ok && strings.TrimSpace(v) != "" {
			text += " " + strings.TrimSpace(v)
		}
	}
	return text
}

// cut fits a text into one message.
func cut(s string) string {
	const max = 2000
	if utf8.RuneCountInString(s) <= max {
		return s
	}
	return string([]rune(s)[:max-1]) + "…"
}

// echoes are the channels where the echo of a slash command is being
// posted. Send and Upload to such a channel wait for it (at most
// echoWait): the gateway's answer to a quick command like /status could
// otherwise reach Discord first.
type echoes struct {
	mu      sync.Mutex
	pending map[string]*echo
	// waiting, when set, is told of every send that waits (tests).
	waiting func(channelID string)
}

type echo struct {
	n    int
	done chan struct{}
}

// begin marks an echo being posted in a channel; the function it
// returns marks it posted.
func (e *echoes) begin(channelID string) func() {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.pending == nil {
		e.pending = map[string]*echo{}
	}
	p, ok := e.pending[channelID]
	if !ok {
		p = &echo{done: make(chan struct{})}
		e.pending[channelID] = p
	}
	p.n++
	var once sync.Once
	return func() {
		once.Do(func() {
			e.mu.Lock()
			defer e.mu.Unlock()
			if p.n--; p.n == 0 {
				close(p.done)
				delete(e.pending, channelID)
			}
		})
	}
}

// wait returns once no echo is being posted in the channel, echoWait has
// passed, or ctx ended.
func (e *echoes) wait(ctx context.Context, channelID string) error {
	e.mu.Lock()
	p, ok := e.pending[channelID]
	waiting := e.waiting
	e.mu.Unlock()
	if !ok {
		return nil
	}
	if waiting != nil {
		waiting(channelID)
	}
	t := time.NewTimer(echoWait)
	defer t.Stop()
	select {
	case <-p.done:
	case <-t.C:
	case <-ctx.Done():
		return ctx.Err()
	}
	return nil
}
