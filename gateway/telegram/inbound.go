package telegram

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf16"

	"github.com/go-telegram/bot/models"

	"github.com/hermes-go/hermes/gateway"
)

// handle hands one update to the handler. Only Message can fail it; an
// update the gateway does not read (an edit, a sticker, a service
// message) is taken as it is.
func (r *run) handle(ctx context.Context, u *models.Update) error {
	switch {
	case u.Message != nil:
		in, ok := r.inbound(u.Message)
		if !ok {
			return nil
		}
		if err := r.h.Message(ctx, in); err != nil {
			return fmt.Errorf("message %s: %w", in.MessageID, err)
		}
	case u.CallbackQuery != nil:
		r.click(ctx, u.CallbackQuery)
	}
	return nil
}

// inbound reads a person's message; ok is false for what the gateway
// does not take (channel posts, the bot's own, nothing to read).
func (r *run) inbound(m *models.Message) (gateway.Inbound, bool) {
	if m.From == nil || m.From.ID == r.me.ID {
		return gateway.Inbound{}, false
	}
	text, entities := m.Text, m.Entities
	if text == "" {
		text, entities = m.Caption, m.CaptionEntities
	}
	in := gateway.Inbound{
		Platform:    r.a.Platform(),
		Chat:        chatRef(m),
		MessageID:   fmt.Sprintf("%d:%d", m.Chat.ID, m.ID),
		UserID:      strconv.FormatInt(m.From.ID, 10),
		UserName:    displayName(m.From),
		Attachments: r.a.attachments(m),
	}
	switch m.Chat.Type {
	case models.ChatTypePrivate:
		in.ChatType, in.Text, in.Addressed = gateway.DM, text, true
	case models.ChatTypeGroup, models.ChatTypeSupergroup:
		in.ChatType = gateway.Group
		in.Text, in.Addressed = r.addressed(m, text, entities)
	default:
		return gateway.Inbound{}, false
	}
	if in.Text == "" && len(in.Attachments) == 0 {
		return gateway.Inbound{}, false
	}
	return in, true
}

// chatRef is where a message is: its chat, and its forum topic. Replies
// in a group without topics carry a message_thread_id too, but sending
// there is not a thread, so only topic messages get a ThreadID.
func chatRef(m *models.Message) gateway.ChatRef {
	ref := gateway.ChatRef{ChatID: strconv.FormatInt(m.Chat.ID, 10)}
	if m.IsTopicMessage && m.MessageThreadID != 0 {
		ref.ThreadID = strconv.Itoa(m.MessageThreadID)
	}
	return ref
}

func displayName(u *models.User) string {
	name := strings.TrimSpace(u.FirstName + " " + u.LastName)
	if name == "" && u.Username != "" {
		return "@" + u.Username
	}
	return name
}

// addressed says whether a group message is for the bot: it mentions
// @bot, replies to one of the bot's messages, or starts with a command
// that is not another bot's (/cmd or /cmd@bot). The mention and the
// command's @bot are taken out of the text.
func (r *run) addressed(m *models.Message, text string, entities []models.MessageEntity) (string, bool) {
	addressed := m.ReplyToMessage != nil && m.ReplyToMessage.From != nil && m.ReplyToMessage.From.ID == r.me.ID
	units := utf16.Encode([]rune(text))
	var cuts [][2]int // UTF-16 ranges to remove, in order
	for _, e := range entities {
		if e.Offset < 0 || e.Length <= 0 || e.Offset+e.Length > len(units) {
			continue
		}
		word := string(utf16.Decode(units[e.Offset : e.Offset+e.Length]))
		switch e.Type {
		case models.MessageEntityTypeMention:
			if strings.EqualFold(word, "@"+r.me.Username) {
				addressed = true
				cuts = append(cuts, [2]int{e.Offset, e.Offset + e.Length})
			}
		case models.MessageEntityTypeTextMention:
			if e.User != nil && e.User.ID == r.me.ID {
				addressed = true
			}
		case models.MessageEntityTypeBotCommand:
			if e.Offset != 0 {
				continue
			}
			cmd, target, hasTarget := strings.Cut(word, "@")
			switch {
			case !hasTarget:
				addressed = true
			case strings.EqualFold(target, r.me.Username):
				addressed = true
				at := e.Offset + len(utf16.Encode([]rune(cmd)))
				cuts = append(cuts, [2]int{at, e.Offset + e.Length})
			}
		}
	}
	return strings.TrimSpace(cut(units, cuts)), addressed
}

// cut removes ranges of UTF-16 units from a text, with one space next to
// each so "hi @bot there" reads "hi there".
func cut(units []uint16, ranges [][2]int) string {
	var out []uint16
	at := 0
	for _, rg := range ranges {
		if rg[0] < at {
			continue
		}
		out = append(out, units[at:rg[0]]...)
		at = rg[1]
		if at < len(units) && units[at] == ' ' && (len(out) == 0 || out[len(out)-1] == ' ') {
			at++
		}
	}
	out = append(out, units[at:]...)
	return string(utf16.Decode(out))
}
