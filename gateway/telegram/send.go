package telegram

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/go-telegram/bot"
	"github.com/go-telegram/bot/models"

	"github.com/hermes-go/hermes/gateway"
)

const (
	maxCaption   = 1024     // characters of a file's caption
	maxUpload    = 50 << 20 // bytes a bot may upload
	maxPhotoSize = 10 << 20 // bytes of a photo sent as a photo
)

// Send posts a message (HTML unless Plain) and returns its message_id.
func (a *Adapter) Send(ctx context.Context, m gateway.Outbound) (gateway.Sent, error) {
	chat, thread, err := target(m.Chat)
	if err != nil {
		return gateway.Sent{}, err
	}
	p := &bot.SendMessageParams{ChatID: chat, MessageThreadID: thread, Text: m.Text}
	if !m.Plain {
		p.ParseMode = models.ParseModeHTML
	}
	if m.ReplyTo != "" {
		id, err := messageNumber(m.ReplyTo)
		if err != nil {
			return gateway.Sent{}, err
		}
		// A reply to a message deleted meanwhile is still sent.
		p.ReplyParameters = &models.ReplyParameters{MessageID: id, AllowSendingWithoutReply: true}
	}
	if kb, err := keyboard(m.Buttons); err != nil {
		return gateway.Sent{}, err
	} else if kb != nil {
		p.ReplyMarkup = kb
	}
	ctx, cancel := context.WithTimeout(ctx, callTimeout)
	defer cancel()
	msg, err := a.bot.SendMessage(ctx, p)
	if err != nil {
		return gateway.Sent{}, sendError("sendMessage", err)
	}
	return gateway.Sent{MessageID: strconv.Itoa(msg.ID)}, nil
}

// Edit replaces a message's text and its buttons (none removes them).
// messageID is what Send returned, or an Inbound's "chat:message" id.
func (a *Adapter) Edit(ctx context.Context, chat gateway.ChatRef, messageID string, m gateway.Outbound) error {
	chatID, _, err := target(chat)
	if err != nil {
		return err
	}
	id, err := messageNumber(messageID)
	if err != nil {
		return err
	}
	p := &bot.EditMessageTextParams{ChatID: chatID, MessageID: id, Text: m.Text}
	if !m.Plain {
		p.ParseMode = models.ParseModeHTML
	}
	if kb, err := keyboard(m.Buttons); err != nil {
		return err
	} else if kb != nil {
		p.ReplyMarkup = kb
	}
	ctx, cancel := context.WithTimeout(ctx, callTimeout)
	defer cancel()
	_, err = a.bot.EditMessageText(ctx, p)
	return sendError("editMessageText", err)
}

// Upload sends a file: an image of up to 10 MB as a photo, anything
// else as a document. The caption is plain text, cut to 1,024
// characters.
func (a *Adapter) Upload(ctx context.Context, chat gateway.ChatRef, f gateway.File) (gateway.Sent, error) {
	chatID, thread, err := target(chat)
	if err != nil {
		return gateway.Sent{}, err
	}
	file, err := os.Open(f.Path)
	if err != nil {
		return gateway.Sent{}, &gateway.SendError{Permanent: true, Err: fmt.Errorf("telegram upload: %w", err)}
	}
	defer file.Close()
	info, err := file.Stat()
	if err != nil {
		return gateway.Sent{}, fmt.Errorf("telegram upload: %w", err)
	}
	if info.Size() > maxUpload {
		return gateway.Sent{}, &gateway.SendError{Permanent: true, Err: fmt.Errorf("telegram upload: %s is %d MB; bots may upload at most 50 MB", f.Path, info.Size()>>20)}
	}
	name := f.Name
	if name == "" {
		name = filepath.Base(f.Path)
	}
	upload := &models.InputFileUpload{Filename: name, Data: file}
	caption := truncate(f.Caption, maxCaption)
	ctx, cancel := context.WithTimeout(ctx, uploadTimeout)
	defer cancel()
	var msg *models.Message
	if isPhoto(name) && info.Size() <= maxPhotoSize {
		msg, err = a.bot.SendPhoto(ctx, &bot.SendPhotoParams{ChatID: chatID, MessageThreadID: thread, Photo: upload, Caption: caption})
		err = sendError("sendPhoto", err)
	} else {
		msg, err = a.bot.SendDocument(ctx, &bot.SendDocumentParams{ChatID: chatID, MessageThreadID: thread, Document: upload, Caption: caption})
		err = sendError("sendDocument", err)
	}
	if err != nil {
		return gateway.Sent{}, err
	}
	return gateway.Sent{MessageID: strconv.Itoa(msg.ID)}, nil
}

// Typing shows "typing…" in the chat (Telegram shows it for 5 seconds
// or until the bot's next message).
func (a *Adapter) Typing(ctx context.Context, chat gateway.ChatRef) error {
	chatID, thread, err := target(chat)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, callTimeout)
	defer cancel()
	_, err = a.bot.SendChatAction(ctx, &bot.SendChatActionParams{ChatID: chatID, MessageThreadID: thread, Action: models.ChatActionTyping})
	return sendError("sendChatAction", err)
}

// target reads a ChatRef: a numeric chat id (or a public @channel) and
// a forum topic.
func target(c gateway.ChatRef) (any, int, error) {
	if c.ChatID == "" {
		return nil, 0, &gateway.SendError{Permanent: true, Err: fmt.Errorf("telegram: no chat id")}
	}
	var chat any = c.ChatID
	if n, err := strconv.ParseInt(c.ChatID, 10, 64); err == nil {
		chat = n
	}
	thread := 0
	if c.ThreadID != "" {
		n, err := strconv.Atoi(c.ThreadID)
		if err != nil {
			return nil, 0, &gateway.SendError{Permanent: true, Err: fmt.Errorf("telegram: thread id %q is not a number", c.ThreadID)}
		}
		thread = n
	}
	return chat, thread, nil
}

// messageNumber reads a message id: "123", or "chat:123" as Inbound has
// it.
func messageNumber(id string) (int, error) {
	if i := strings.LastIndexByte(id, ':'); i >= 0 {
		id = id[i+1:]
	}
	n, err := strconv.Atoi(id)
	if err != nil {
		return 0, &gateway.SendError{Permanent: true, Err: fmt.Errorf("telegram: message id %q is not a number", id)}
	}
	return n, nil
}

// keyboard builds the inline keyboard; Telegram takes 1 to 64 bytes of
// callback data, so longer data is refused here rather than by Telegram
// after the text was built.
func keyboard(rows [][]gateway.Button) (*models.InlineKeyboardMarkup, error) {
	if len(rows) == 0 {
		return nil, nil
	}
	kb := &models.InlineKeyboardMarkup{InlineKeyboard: [][]models.InlineKeyboardButton{}}
	for _, row := range rows {
		var out []models.InlineKeyboardButton
		for _, b := range row {
			if n := len(b.Data); n == 0 || n > 64 {
				return nil, &gateway.SendError{Permanent: true, Err: fmt.Errorf("telegram: button %q has %d bytes of data; Telegram takes 1 to 64", b.Label, n)}
			}
			out = append(out, models.InlineKeyboardButton{Text: b.Label, CallbackData: b.Data})
		}
		kb.InlineKeyboard = append(kb.InlineKeyboard, out)
	}
	return kb, nil
}

func isPhoto(name string) bool {
	switch strings.ToLower(filepath.Ext(name)) {
	case ".jpg", ".jpeg", ".png", ".webp":
		return true
	}
	return false
}

func truncate(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}
