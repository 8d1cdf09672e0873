package discord

import (
	"context"
	"errors"
	"fmt"
	"mime"
	"os"
	"path/filepath"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/bwmarrin/discordgo"

	"github.com/hermes-go/hermes/gateway"
)

const (
	// maxUpload is the largest file any Discord server accepts (a level 3
	// boosted one); smaller limits are Discord's to enforce (413).
	maxUpload = 100 << 20
	// Discord's component limits.
	maxRows, maxRowButtons, maxLabel = 5, 5, 80
)

// Send posts a message to the chat, or to its thread when ThreadID is
// set, as a reply when ReplyTo is set, with buttons under it. Mentions in
// the text notify nobody: a model writing @everyone pings no one.
func (a *Adapter) Send(ctx context.Context, m gateway.Outbound) (gateway.Sent, error) {
	ch := target(m.Chat)
	if ch == "" {
		return gateway.Sent{}, errors.New("discord: send: no channel")
	}
	rows, err := components(m.Buttons)
	if err != nil {
		return gateway.Sent{}, &gateway.SendError{Permanent: true, Err: fmt.Errorf("discord: send: %w", err)}
	}
	data := &discordgo.MessageSend{Content: text(m), Components: rows, AllowedMentions: noPings()}
	if m.ReplyTo != "" {
		no := false
		data.Reference = &discordgo.MessageReference{MessageID: m.ReplyTo, ChannelID: ch, FailIfNotExists: &no}
	}
	if err := a.echoes.wait(ctx, ch); err != nil {
		return gateway.Sent{}, fmt.Errorf("discord: send: %w", err)
	}
	if err := a.bucketFree("send", discordgo.EndpointChannelMessages(ch)); err != nil {
		return gateway.Sent{}, err
	}
	var ans answer
	msg, err := a.s.ChannelMessageSendComplex(ch, data, a.call(ctx, &ans)...)
	if err != nil {
		return gateway.Sent{}, classify("send", err, &ans)
	}
	return gateway.Sent{MessageID: msg.ID}, nil
}

// Edit replaces a message's text and buttons (no buttons removes them).
func (a *Adapter) Edit(ctx context.Context, chat gateway.ChatRef, messageID string, m gateway.Outbound) error {
	ch := target(chat)
	if ch == "" || messageID == "" {
		return errors.New("discord: edit: no channel or message")
	}
	rows, err := components(m.Buttons)
	if err != nil {
		return &gateway.SendError{Permanent: true, Err: fmt.Errorf("discord: edit: %w", err)}
	}
	if rows == nil {
		rows = []discordgo.MessageComponent{}
	}
	content := text(m)
	edit := &discordgo.MessageEdit{ID: messageID, Channel: ch, Content: &content, Components: &rows, AllowedMentions: noPings()}
	if err := a.bucketFree("edit", discordgo.EndpointChannelMessage(ch, "")); err != nil {
		return err
	}
	var ans answer
	if _, err := a.s.ChannelMessageEditComplex(edit, a.call(ctx, &ans)...); err != nil {
		return classify("edit", err, &ans)
	}
	return nil
}

// Upload sends a file as an attachment, with the caption as its text.
func (a *Adapter) Upload(ctx context.Context, chat gateway.ChatRef, f gateway.File) (gateway.Sent, error) {
	ch := target(chat)
	if ch == "" {
		return gateway.Sent{}, errors.New("discord: upload: no channel")
	}
	file, err := os.Open(f.Path)
	if err != nil {
		return gateway.Sent{}, fmt.Errorf("discord: upload: %w", err)
	}
	defer file.Close()
	info, err := file.Stat()
	if err != nil {
		return gateway.Sent{}, fmt.Errorf("discord: upload: %w", err)
	}
	if info.Size() > maxUpload {
		return gateway.Sent{}, &gateway.SendError{Permanent: true,
			Err: fmt.Errorf("discord: upload: %s is %d bytes, more than Discord accepts (%d)", f.Path, info.Size(), maxUpload)}
	}
	name := f.Name
	if name == "" {
		name = filepath.Base(f.Path)
	}
	data := &discordgo.MessageSend{
		Content:         f.Caption,
		AllowedMentions: noPings(),
		Files:           []*discordgo.File{{Name: name, ContentType: mime.TypeByExtension(filepath.Ext(name)), Reader: file}},
	}
	if err := a.echoes.wait(ctx, ch); err != nil {
		return gateway.Sent{}, fmt.Errorf("discord: upload: %w", err)
	}
	if err := a.bucketFree("upload", discordgo.EndpointChannelMessages(ch)); err != nil {
		return gateway.Sent{}, err
	}
	var ans answer
	msg, err := a.s.ChannelMessageSendComplex(ch, data, a.call(ctx, &ans)...)
	if err != nil {
		return gateway.Sent{}, classify("upload", err, &ans)
	}
	return gateway.Sent{MessageID: msg.ID}, nil
}

// Typing shows "hermes is typing…" in the channel for ten seconds or
// until the bot's next message.
func (a *Adapter) Typing(ctx context.Context, chat gateway.ChatRef) error {
	ch := target(chat)
	if ch == "" {
		return errors.New("discord: typing: no channel")
	}
	if err := a.bucketFree("typing", discordgo.EndpointChannelTyping(ch)); err != nil {
		return err
	}
	var ans answer
	if err := a.s.ChannelTyping(ch, a.call(ctx, &ans)...); err != nil {
		return classify("typing", err, &ans)
	}
	return nil
}

// bucketFree refuses a call whose rate limit bucket is spent, with the
// wait, instead of letting discordgo sleep until the bucket resets: the
// gateway's ledger does the waiting.
func (a *Adapter) bucketFree(op, bucket string) error {
	rl := a.s.Ratelimiter
	b := rl.GetBucket(bucket)
	b.Lock()
	wait := rl.GetWaitTime(b, 1)
	b.Unlock()
	if wait <= 0 {
		return nil
	}
	return &gateway.SendError{RetryAfter: wait,
		Err: fmt.Errorf("discord: %s: rate limit bucket spent for %s", op, wait.Round(time.Millisecond))}
}

// target is the channel a message for chat goes to: the thread, if any.
func target(chat gateway.ChatRef) string {
	if chat.ThreadID != "" {
		return chat.ThreadID
	}
	return chat.ChatID
}

func text(m gateway.Outbound) string {
	if m.Plain {
		return escapeMarkdown(m.Text)
	}
	return m.Text
}

// noPings lets a bot message notify only the person it replies to:
// @everyone, @here, roles and users named in the text notify nobody.
func noPings() *discordgo.MessageAllowedMentions {
	return &discordgo.MessageAllowedMentions{Parse: []discordgo.AllowedMentionType{}, RepliedUser: true}
}

// components lays buttons out as Discord's action rows: a row holds at
// most five buttons (a longer row wraps), a message at most five rows.
// A button's style follows its label: Deny is red, Once green, the rest
// blurple.
func components(buttons [][]gateway.Button) ([]discordgo.MessageComponent, error) {
	var rows []discordgo.MessageComponent
	for _, row := range buttons {
		for len(row) > 0 {
			n := min(len(row), maxRowButtons)
			var bs []discordgo.MessageComponent
			for _, b := range row[:n] {
				if b.Data == "" || len(b.Data) > 100 {
					return nil, fmt.Errorf("button %q: its data must be 1 to 100 bytes, got %d", b.Label, len(b.Data))
				}
				bs = append(bs, discordgo.Button{Label: label(b.Label), Style: style(b.Label), CustomID: b.Data})
			}
			rows = append(rows, discordgo.ActionsRow{Components: bs})
			row = row[n:]
		}
	}
	if len(rows) > maxRows {
		return nil, fmt.Errorf("%d rows of buttons, Discord shows at most %d", len(rows), maxRows)
	}
	return rows, nil
}

func style(label string) discordgo.ButtonStyle {
	switch {
	case strings.HasPrefix(label, "Deny"):
		return discordgo.DangerButton
	case strings.HasPrefix(label, "Once"):
		return discordgo.SuccessButton
	}
	return discordgo.PrimaryButton
}

func label(s string) string {
	if utf8.RuneCountInString(s) <= maxLabel {
		return s
	}
	r := []rune(s)
	return string(r[:maxLabel-1]) + "…"
}

// escapeMarkdown makes text show as written: Discord's markdown
// characters get a backslash, links stay clickable.
func escapeMarkdown(s string) string {
	var b strings.Builder
	lineStart := true
	for i := 0; i < len(s); {
		if hasLinkPrefix(s[i:]) {
			end := i
			for end < len(s) && !isSpace(s[end]) {
				end++
			}
			b.WriteString(s[i:end])
			i, lineStart = end, false
			continue
		}
		c := s[i]
		switch {
		case strings.IndexByte("\\*_~`|", c) >= 0, lineStart && strings.IndexByte("#>-", c) >= 0:
			b.WriteByte('\\')
		}
		b.WriteByte(c)
		if c == '\n' {
			lineStart = true
		} else if c != ' ' && c != '\t' {
			lineStart = false
		}
		i++
	}
	return b.String()
}

func hasLinkPrefix(s string) bool {
	return strings.HasPrefix(s, "https://") || strings.HasPrefix(s, "http://")
}

func isSpace(c byte) bool { return c == ' ' || c == '\n' || c == '\t' || c == '\r' }
