package signal

import (
	"context"
	"encoding/base64"
	"fmt"
	"mime"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/hermes-go/hermes/gateway"
)

// A person's chat id is their number (+15551234567) or their account's
// UUID; any other chat id is a group's id (base64, as signal-cli's
// listGroups shows it). No chat id holds a colon, so it can be a home
// channel or a delivery target (signal:CHAT).
func isPerson(id string) bool {
	if strings.HasPrefix(id, "+") {
		return true
	}
	if len(id) != 36 {
		return false
	}
	for i, r := range id {
		switch {
		case i == 8 || i == 13 || i == 18 || i == 23:
			if r != '-' {
				return false
			}
		case !strings.ContainsRune("0123456789abcdefABCDEF", r):
			return false
		}
	}
	return true
}

// Send posts a message and returns its timestamp, Signal's id for it.
// A reply quotes the message it answers; buttons are listed under the
// text, each with the emoji a reaction picks it by.
func (a *Adapter) Send(ctx context.Context, m gateway.Outbound) (gateway.Sent, error) {
	p, err := target(m.Chat)
	if err != nil {
		return gateway.Sent{}, err
	}
	p["message"] = m.Text + renderButtons(m.Buttons)
	if m.ReplyTo != "" {
		author, ts, err := a.messageRef(m.ReplyTo)
		if err != nil {
			return gateway.Sent{}, err
		}
		p["quoteTimestamp"], p["quoteAuthor"] = ts, author
	}
	if len(m.Buttons) > 0 {
		defer a.sendingCard()() // after remember
	}
	ts, err := a.send(ctx, "send", p)
	if err != nil {
		return gateway.Sent{}, err
	}
	a.remember(m.Chat.ChatID, ts, m.Buttons)
	return gateway.Sent{MessageID: strconv.FormatInt(ts, 10)}, nil
}

// Edit replaces the text of a message the bot sent (send with
// editTimestamp: Signal's apps show the new text, marked edited). Its
// buttons are listed again, or gone when m has none.
func (a *Adapter) Edit(ctx context.Context, chat gateway.ChatRef, messageID string, m gateway.Outbound) error {
	p, err := target(chat)
	if err != nil {
		return err
	}
	author, ts, err := a.messageRef(messageID)
	if err != nil {
		return err
	}
	if author != a.o.Account {
		return &gateway.SendError{Permanent: true, Err: fmt.Errorf("signal: message %s is not the bot's to edit", messageID)}
	}
	p["message"] = m.Text + renderButtons(m.Buttons)
	p["editTimestamp"] = ts
	if _, err := a.send(ctx, "send", p); err != nil {
		return err
	}
	a.remember(chat.ChatID, ts, m.Buttons)
	return nil
}

// Upload sends a file as an attachment (a data URI, so the daemon need
// not share the bot's disk), with the caption as the message.
func (a *Adapter) Upload(ctx context.Context, chat gateway.ChatRef, f gateway.File) (gateway.Sent, error) {
	p, err := target(chat)
	if err != nil {
		return gateway.Sent{}, err
	}
	info, err := os.Stat(f.Path)
	if err != nil {
		return gateway.Sent{}, &gateway.SendError{Permanent: true, Err: fmt.Errorf("signal upload: %w", err)}
	}
	if info.Size() > maxUpload {
		return gateway.Sent{}, &gateway.SendError{Permanent: true, Err: fmt.Errorf("signal upload: %s is %d MB; Signal takes at most 100 MB", f.Path, info.Size()>>20)}
	}
	b, err := os.ReadFile(f.Path)
	if err != nil {
		return gateway.Sent{}, &gateway.SendError{Permanent: true, Err: fmt.Errorf("signal upload: %w", err)}
	}
	name := f.Name
	if name == "" {
		name = filepath.Base(f.Path)
	}
	p["attachments"] = []string{dataURI(name, b)}
	p["message"] = f.Caption
	ts, err := a.send(ctx, "send", p)
	if err != nil {
		return gateway.Sent{}, err
	}
	return gateway.Sent{MessageID: strconv.FormatInt(ts, 10)}, nil
}

// Typing shows that the bot is typing (Signal shows it for a few
// seconds, or until the bot's next message).
func (a *Adapter) Typing(ctx context.Context, chat gateway.ChatRef) error {
	p, err := target(chat)
	if err != nil {
		return err
	}
	return a.call(ctx, "sendTyping", p, nil)
}

// send makes a send call and reads its per-recipient results.
func (a *Adapter) send(ctx context.Context, method string, p map[string]any) (int64, error) {
	var r sendResult
	if err := a.call(ctx, method, p, &r); err != nil {
		return 0, err
	}
	if err := resultError(method, r); err != nil {
		return 0, err
	}
	if r.Timestamp == 0 {
		return 0, fmt.Errorf("signal %s: the answer has no timestamp", method)
	}
	return r.Timestamp, nil
}

// target reads a ChatRef into send's parameters: groupId for a group,
// recipient for a person.
func target(c gateway.ChatRef) (map[string]any, error) {
	switch {
	case c.ChatID == "":
		return nil, &gateway.SendError{Permanent: true, Err: fmt.Errorf("signal: no chat id")}
	case isPerson(c.ChatID):
		return map[string]any{"recipient": []string{c.ChatID}}, nil
	}
	return map[string]any{"groupId": c.ChatID}, nil
}

// messageRef reads a message id: "timestamp" for the bot's own (what
// Send returned), "author:timestamp" for a person's (an Inbound's).
func (a *Adapter) messageRef(id string) (author string, ts int64, err error) {
	author, num := a.o.Account, id
	if i := strings.LastIndexByte(id, ':'); i >= 0 {
		author, num = id[:i], id[i+1:]
	}
	ts, err = strconv.ParseInt(num, 10, 64)
	if err != nil || ts <= 0 || author == "" {
		return "", 0, &gateway.SendError{Permanent: true, Err: fmt.Errorf("signal: message id %q is not author:timestamp", id)}
	}
	return author, ts, nil
}

// dataURI is an attachment as signal-cli takes it inline:
// data:<type>;filename=<name>;base64,<data>.
func dataURI(name string, b []byte) string {
	typ := mime.TypeByExtension(strings.ToLower(filepath.Ext(name)))
	if typ == "" {
		typ = "application/octet-stream"
	}
	if i := strings.IndexByte(typ, ';'); i >= 0 {
		typ = typ[:i]
	}
	return "data:" + typ + ";filename=" + strings.NewReplacer(";", "_", ",", "_").Replace(name) + ";base64," + base64.StdEncoding.EncodeToString(b)
}
