package discord

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"strings"

	"github.com/bwmarrin/discordgo"

	"github.com/hermes-go/hermes/gateway"
)

// onMessage hands a person's message to the handler (MESSAGE_CREATE).
func (a *Adapter) onMessage(_ *discordgo.Session, mc *discordgo.MessageCreate) {
	h, ctx := a.handler()
	if h == nil || mc.Message == nil {
		return
	}
	in, ok := a.inbound(ctx, mc.Message)
	if !ok {
		return
	}
	if err := h.Message(ctx, in); err != nil {
		// Discord cannot be asked again for one event: the channel's
		// cursor stays before the message, and the next catch-up reads it.
		a.log.Error("discord: the gateway did not take a message", "message", in.MessageID, "err", err)
		a.seen.hold(mc.ChannelID)
		return
	}
	a.seen.note(ctx, mc.ChannelID, mc.GuildID, mc.ID)
}

// inbound turns a message into the gateway's Inbound; it says false for
// what the gateway must not see: the bot's own messages, other bots',
// system messages (pins, joins, thread starts).
func (a *Adapter) inbound(ctx context.Context, m *discordgo.Message) (gateway.Inbound, bool) {
	me := a.botID()
	if m.Author == nil || m.Author.Bot || m.Author.ID == me || m.WebhookID != "" {
		return gateway.Inbound{}, false
	}
	if m.Type != discordgo.MessageTypeDefault && m.Type != discordgo.MessageTypeReply {
		return gateway.Inbound{}, false
	}
	in := gateway.Inbound{
		Platform:  a.Platform(),
		Chat:      a.chat(ctx, m.ChannelID, m.GuildID),
		ChatType:  gateway.DM,
		MessageID: m.ID,
		UserID:    m.Author.ID,
		UserName:  displayName(m),
		Text:      m.Content,
		Addressed: true,
	}
	if m.GuildID != "" {
		in.ChatType = gateway.Group
		text, mentioned := stripMention(m.Content, me)
		in.Text = text
		in.Addressed = mentioned || mentions(m.Mentions, me) || repliesTo(m, me)
	}
	for _, at := range m.Attachments {
		in.Attachments = append(in.Attachments, a.attachment(at))
	}
	return in, true
}

func displayName(m *discordgo.Message) string {
	switch {
	case m.Member != nil && m.Member.Nick != "":
		return m.Member.Nick
	case m.Author.GlobalName != "":
		return m.Author.GlobalName
	}
	return m.Author.Username
}

// stripMention removes the bot's mentions (<@id> and the older <@!id>)
// from a message and says whether there was one.
func stripMention(text, me string) (string, bool) {
	if me == "" {
		return text, false
	}
	re := regexp.MustCompile(`[ \t]*<@!?` + regexp.QuoteMeta(me) + `>[ \t]*`)
	if !re.MatchString(text) {
		return text, false
	}
	return strings.TrimSpace(re.ReplaceAllString(text, " ")), true
}

func mentions(users []*discordgo.User, me string) bool {
	for _, u := range users {
		if u != nil && u.ID == me && me != "" {
			return true
		}
	}
	return false
}

// repliesTo says whether the message answers one of the bot's.
func repliesTo(m *discordgo.Message, me string) bool {
	r := m.ReferencedMessage
	return me != "" && r != nil && r.Author != nil && r.Author.ID == me
}

// attachment describes a file of a message; Open downloads it.
func (a *Adapter) attachment(at *discordgo.MessageAttachment) gateway.Attachment {
	url, name := at.URL, at.Filename
	return gateway.Attachment{
		Kind: attachmentKind(at),
		Name: name,
		MIME: at.ContentType,
		Size: int64(at.Size),
		Open: func(ctx context.Context) (io.ReadCloser, error) {
			req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
			if err != nil {
				return nil, fmt.Errorf("discord: attachment %s: %w", name, err)
			}
			resp, err := a.hc.Do(req)
			if err != nil {
				return nil, fmt.Errorf("discord: downloading attachment %s: %w", name, err)
			}
			if resp.StatusCode != http.StatusOK {
				resp.Body.Close()
				return nil, fmt.Errorf("discord: downloading attachment %s: HTTP %d", name, resp.StatusCode)
			}
			return resp.Body, nil
		},
	}
}

func attachmentKind(at *discordgo.MessageAttachment) string {
	ct := strings.ToLower(at.ContentType)
	switch {
	case strings.HasPrefix(ct, "audio/") && (at.Waveform != "" || at.DurationSecs > 0):
		return "voice"
	case strings.HasPrefix(ct, "image/"):
		return "image"
	case strings.HasPrefix(ct, "audio/"):
		return "audio"
	case strings.HasPrefix(ct, "video/"):
		return "video"
	}
	return "file"
}
