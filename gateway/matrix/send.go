package matrix

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"mime"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"maunium.net/go/mautrix"
	"maunium.net/go/mautrix/event"
	"maunium.net/go/mautrix/id"

	"github.com/hermes-go/hermes/gateway"
	"github.com/hermes-go/hermes/gateway/format"
)

// txnID is a new transaction id: unique to this process (a random
// prefix) and to the send (a counter).
func (a *Adapter) txnID() string {
	return a.txnPrefix + "-" + strconv.FormatUint(a.txnSeq.Add(1), 10)
}

// sendEvent sends one event with a transaction id. The id of a send
// whose request failed in transit (the homeserver may have taken it) is
// kept under key, and the next send with the same key (the gateway's
// retry: it hands a chat its next message only once this one is
// delivered or failed) reuses it: the homeserver answers a repeated
// transaction with the event it already made, so a retried send never
// posts twice.
func (a *Adapter) sendEvent(ctx context.Context, room id.RoomID, typ event.Type, content any, key string) (id.EventID, error) {
	a.mu.Lock()
	txn, retry := a.pending[key]
	if !retry {
		txn = a.txnID()
	}
	a.mu.Unlock()
	cctx, cancel := context.WithTimeout(ctx, callTimeout)
	defer cancel()
	resp, err := a.cli.SendMessageEvent(cctx, room, typ, content, mautrix.ReqSendEvent{TransactionID: txn})
	a.mu.Lock()
	if _, re := respError(err); err == nil || re != nil {
		delete(a.pending, key) // the homeserver answered: the outcome is known
	} else {
		if len(a.pending) >= remembered {
			clear(a.pending)
		}
		a.pending[key] = txn
	}
	a.mu.Unlock()
	if err != nil {
		return "", err
	}
	return resp.EventID, nil
}

// sendKey names a send by what it posts, for sendEvent's retries.
func sendKey(parts ...string) string {
	h := sha256.New()
	for _, p := range parts {
		fmt.Fprintf(h, "%d:%s", len(p), p)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// content is a message's content: the text as its plain body, and,
// unless plain, its markdown rendered to HTML as formatted_body.
func content(text string, plain bool, msgtype event.MessageType) *event.MessageEventContent {
	c := &event.MessageEventContent{MsgType: msgtype, Body: text, Mentions: &event.Mentions{}}
	if plain {
		return c
	}
	if h := toHTML(text); strings.Contains(h, "<") {
		c.Format, c.FormattedBody = event.FormatHTML, h
	}
	return c
}

// toHTML renders markdown as HTML with the gateway's own converter (its
// Telegram subset: b, i, u, s, code, pre, a, blockquote, all of which
// Matrix clients render), its line breaks made <br> outside <pre>, where
// HTML would fold them.
func toHTML(md string) string {
	h := format.TelegramHTML(md)
	var b strings.Builder
	for h != "" {
		i := strings.Index(h, "<pre>")
		if i < 0 {
			b.WriteString(strings.ReplaceAll(h, "\n", "<br>"))
			break
		}
		b.WriteString(strings.ReplaceAll(h[:i], "\n", "<br>"))
		j := strings.Index(h[i:], "</pre>")
		if j < 0 {
			b.WriteString(h[i:])
			break
		}
		b.WriteString(h[i : i+j+len("</pre>")])
		h = h[i+j+len("</pre>"):]
	}
	return b.String()
}

// relate puts a message in its thread (m.thread, replying to ReplyTo or
// else falling back to the thread's root) or makes it a reply.
func relate(c *event.MessageEventContent, chat gateway.ChatRef, replyTo string) {
	switch {
	case chat.ThreadID != "":
		c.RelatesTo = (&event.RelatesTo{}).SetThread(id.EventID(chat.ThreadID), id.EventID(chat.ThreadID))
		if replyTo != "" {
			c.RelatesTo.InReplyTo = &event.InReplyTo{EventID: id.EventID(replyTo)}
			c.RelatesTo.IsFallingBack = false
		}
	case replyTo != "":
		c.RelatesTo = &event.RelatesTo{InReplyTo: &event.InReplyTo{EventID: id.EventID(replyTo)}}
	}
}

// Send posts a message (m.text); its Buttons become reactions the bot
// adds to it, which people click to answer.
func (a *Adapter) Send(ctx context.Context, m gateway.Outbound) (gateway.Sent, error) {
	room := id.RoomID(m.Chat.ChatID)
	text := m.Text
	keys := reactionKeys(m.Buttons)
	if len(keys) > 0 {
		text += "\n\n" + reactionHint(keys)
	}
	c := content(text, m.Plain, event.MsgText)
	relate(c, m.Chat, m.ReplyTo)
	evID, err := a.sendEvent(ctx, room, event.EventMessage, c,
		sendKey("send", m.Chat.ChatID, m.Chat.ThreadID, m.ReplyTo, text, strconv.FormatBool(m.Plain)))
	if err != nil {
		return gateway.Sent{}, sendError("send", err)
	}
	a.mu.Lock()
	a.own.add(string(evID))
	a.mu.Unlock()
	if len(keys) > 0 {
		a.addCard(ctx, room, m.Chat, evID, keys)
	}
	return gateway.Sent{MessageID: string(evID)}, nil
}

// Edit replaces a message's text (m.replace). Buttons the message had
// and the edit drops are taken away (the bot's reactions redacted).
func (a *Adapter) Edit(ctx context.Context, chat gateway.ChatRef, messageID string, m gateway.Outbound) error {
	room := id.RoomID(chat.ChatID)
	text := m.Text
	keys := reactionKeys(m.Buttons)
	if len(keys) > 0 {
		text += "\n\n" + reactionHint(keys)
	}
	nc := content(text, m.Plain, event.MsgText)
	c := content("* "+text, true, event.MsgText)
	if nc.FormattedBody != "" {
		c.Format, c.FormattedBody = event.FormatHTML, "* "+nc.FormattedBody
	}
	c.NewContent = nc
	c.RelatesTo = (&event.RelatesTo{}).SetReplace(id.EventID(messageID))
	if _, err := a.sendEvent(ctx, room, event.EventMessage, c, sendKey("edit", chat.ChatID, messageID, text, strconv.FormatBool(m.Plain))); err != nil {
		return sendError("edit", err)
	}
	if len(keys) == 0 {
		a.closeCard(ctx, room, id.EventID(messageID))
	}
	return nil
}

// Upload sends a file (m.image for images, m.file otherwise) with its
// caption as the body.
func (a *Adapter) Upload(ctx context.Context, chat gateway.ChatRef, f gateway.File) (gateway.Sent, error) {
	room := id.RoomID(chat.ChatID)
	data, err := os.ReadFile(f.Path)
	if err != nil {
		return gateway.Sent{}, &gateway.SendError{Permanent: true, Err: fmt.Errorf("matrix upload: %w", err)}
	}
	name := f.Name
	if name == "" {
		name = filepath.Base(f.Path)
	}
	mimeType := mime.TypeByExtension(filepath.Ext(name))
	if mimeType == "" {
		mimeType = "application/octet-stream"
	}
	uctx, cancel := context.WithTimeout(ctx, 5*time.Minute)
	defer cancel()
	up, err := a.cli.UploadBytesWithName(uctx, data, mimeType, name)
	if err != nil {
		return gateway.Sent{}, sendError("upload", err)
	}
	msgtype := event.MsgFile
	if strings.HasPrefix(mimeType, "image/") {
		msgtype = event.MsgImage
	}
	c := &event.MessageEventContent{MsgType: msgtype, Body: name, FileName: name, URL: up.ContentURI.CUString(),
		Info: &event.FileInfo{MimeType: mimeType, Size: len(data)}, Mentions: &event.Mentions{}}
	if f.Caption != "" {
		c.Body = f.Caption
	}
	relate(c, chat, "")
	evID, err := a.sendEvent(ctx, room, event.EventMessage, c, sendKey("upload", chat.ChatID, chat.ThreadID, up.ContentURI.String()))
	if err != nil {
		return gateway.Sent{}, sendError("upload", err)
	}
	return gateway.Sent{MessageID: string(evID)}, nil
}

// Typing shows the bot typing for up to 30 seconds.
func (a *Adapter) Typing(ctx context.Context, chat gateway.ChatRef) error {
	a.mu.Lock()
	me := a.me
	a.mu.Unlock()
	if me == "" {
		return nil
	}
	cctx, cancel := context.WithTimeout(ctx, callTimeout)
	defer cancel()
	room := id.RoomID(chat.ChatID)
	if _, err := a.cli.UserTyping(cctx, room, true, 30*time.Second); err != nil {
		return sendError("typing", err)
	}
	return nil
}
