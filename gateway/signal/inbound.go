package signal

import (
	"bytes"
	"context"
	"encoding/base64"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync/atomic"
	"unicode/utf16"

	"github.com/hermes-go/hermes/gateway"
)

// envelope is what signal-cli reads from Signal: a message, a reaction,
// an edit, a receipt, a typing notice or a sync from the account's other
// devices.
type envelope struct {
	Source       string       `json:"source"`
	SourceNumber string       `json:"sourceNumber"`
	SourceUUID   string       `json:"sourceUuid"`
	SourceName   string       `json:"sourceName"`
	Timestamp    int64        `json:"timestamp"`
	DataMessage  *dataMessage `json:"dataMessage"`
	EditMessage  *struct {
		TargetSentTimestamp int64 `json:"targetSentTimestamp"`
	} `json:"editMessage"`
}

type dataMessage struct {
	Timestamp int64  `json:"timestamp"`
	Message   string `json:"message"`
	GroupInfo *struct {
		GroupID string `json:"groupId"`
	} `json:"groupInfo"`
	Attachments []attachment `json:"attachments"`
	Quote       *struct {
		ID           int64  `json:"id"`
		Author       string `json:"author"`
		AuthorNumber string `json:"authorNumber"`
		AuthorUUID   string `json:"authorUuid"`
	} `json:"quote"`
	Mentions []mention `json:"mentions"`
	Reaction *struct {
		Emoji               string `json:"emoji"`
		TargetAuthor        string `json:"targetAuthor"`
		TargetAuthorNumber  string `json:"targetAuthorNumber"`
		TargetSentTimestamp int64  `json:"targetSentTimestamp"`
		IsRemove            bool   `json:"isRemove"`
	} `json:"reaction"`
}

type attachment struct {
	ID          string `json:"id"`
	ContentType string `json:"contentType"`
	Filename    string `json:"filename"`
	Size        int64  `json:"size"`
}

type mention struct {
	Name   string `json:"name"`
	Number string `json:"number"`
	UUID   string `json:"uuid"`
	Start  int    `json:"start"`
	Length int    `json:"length"`
}

// sender is the person's id: the number, or the UUID of an account that
// hides its number.
func (e *envelope) sender() string {
	switch {
	case e.SourceNumber != "":
		return e.SourceNumber
	case e.SourceUUID != "":
		return e.SourceUUID
	}
	return e.Source
}

// envelope hands a person's message or reaction to the handler; the
// rest (receipts, typing, syncs, the bot's own) is passed over. An edit
// of a message is passed over too: the message was answered as it was.
func (r *run) envelope(ctx context.Context, e *envelope) error {
	from := e.sender()
	if from == "" || from == r.a.o.Account || e.DataMessage == nil {
		if e.EditMessage != nil {
			r.a.log.Info("signal: an edited message passed over", "from", from, "message", e.EditMessage.TargetSentTimestamp)
		}
		return nil
	}
	dm := e.DataMessage
	chat, typ := gateway.ChatRef{ChatID: from}, gateway.DM
	if dm.GroupInfo != nil && dm.GroupInfo.GroupID != "" {
		chat, typ = gateway.ChatRef{ChatID: dm.GroupInfo.GroupID}, gateway.Group
	}
	if rc := dm.Reaction; rc != nil {
		if rc.IsRemove {
			return nil
		}
		if data, ok := r.a.pressed(ctx, chat.ChatID, rc.TargetSentTimestamp, rc.Emoji); ok {
			r.h.Click(ctx, gateway.Click{Platform: r.a.Platform(), Chat: chat, MessageID: strconv.FormatInt(rc.TargetSentTimestamp, 10),
				UserID: from, Data: data, Answer: r.a.answer(from)})
		}
		return nil
	}
	ts := dm.Timestamp
	if ts == 0 {
		ts = e.Timestamp
	}
	in := gateway.Inbound{
		Platform: r.a.Platform(), Chat: chat, ChatType: typ,
		MessageID: from + ":" + strconv.FormatInt(ts, 10),
		UserID:    from, UserName: e.SourceName,
		Attachments: r.a.attachments(chat, dm.Attachments),
	}
	if typ == gateway.DM {
		in.Text, in.Addressed = strings.TrimSpace(dm.Message), true
	} else {
		in.Text, in.Addressed = r.addressed(dm)
	}
	if in.Text == "" && len(in.Attachments) == 0 {
		return nil
	}
	if err := r.h.Message(ctx, in); err != nil {
		return fmt.Errorf("message %s: %w", in.MessageID, err)
	}
	return nil
}

// addressed says whether a group message is for the bot: it mentions
// the bot, quotes one of the bot's messages, or is a command (/new).
// The bot's mention is taken out of the text, others read @name.
func (r *run) addressed(dm *dataMessage) (string, bool) {
	me := r.a.o.Account
	addressed := dm.Quote != nil && (dm.Quote.AuthorNumber == me || dm.Quote.Author == me)
	units := utf16.Encode([]rune(dm.Message))
	var out []uint16
	at := 0
	for _, m := range dm.Mentions {
		if m.Start < at || m.Length <= 0 || m.Start+m.Length > len(units) {
			continue
		}
		out = append(out, units[at:m.Start]...)
		at = m.Start + m.Length
		if m.Number == me {
			addressed = true
			if at < len(units) && units[at] == ' ' {
				at++
			}
			continue
		}
		out = append(out, utf16.Encode([]rune("@"+m.Name))...)
	}
	out = append(out, units[at:]...)
	text := strings.TrimSpace(string(utf16.Decode(out)))
	if strings.HasPrefix(text, "/") {
		addressed = true
	}
	return text, addressed
}

// answer is a click's Answer: a direct message to the person who
// reacted, the only one who reads it. It may be called once.
func (a *Adapter) answer(to string) func(context.Context, string) error {
	var used atomic.Bool
	return func(ctx context.Context, text string) error {
		if !used.CompareAndSwap(false, true) {
			return fmt.Errorf("signal: the reaction was already answered")
		}
		_, err := a.Send(ctx, gateway.Outbound{Chat: gateway.ChatRef{ChatID: to}, Text: text, Plain: true})
		return err
	}
}

// attachments lists a message's files; signal-cli has stored them, and
// Open fetches one by getAttachment.
func (a *Adapter) attachments(chat gateway.ChatRef, as []attachment) []gateway.Attachment {
	var out []gateway.Attachment
	for _, at := range as {
		if at.ID == "" {
			continue
		}
		kind := "file"
		switch typ := at.ContentType; {
		case strings.HasPrefix(typ, "image/"):
			kind = "image"
		case strings.HasPrefix(typ, "audio/") && at.Filename == "":
			kind = "voice" // a voice note has no file name
		case strings.HasPrefix(typ, "audio/"):
			kind = "audio"
		case strings.HasPrefix(typ, "video/"):
			kind = "video"
		}
		name := at.Filename
		if name == "" {
			name = kind
		}
		out = append(out, gateway.Attachment{Kind: kind, Name: name, MIME: at.ContentType, Size: at.Size, Open: a.opener(chat, at.ID)})
	}
	return out
}

// opener fetches an attachment's content from the daemon.
func (a *Adapter) opener(chat gateway.ChatRef, id string) func(context.Context) (io.ReadCloser, error) {
	return func(ctx context.Context) (io.ReadCloser, error) {
		// signal-cli asks where the file came from: the group, or the
		// person who sent it in a direct chat.
		p := map[string]any{"id": id, "groupId": chat.ChatID}
		if isPerson(chat.ChatID) {
			p = map[string]any{"id": id, "recipient": chat.ChatID}
		}
		var res struct {
			Data string `json:"data"`
		}
		if err := a.call(ctx, "getAttachment", p, &res); err != nil {
			return nil, fmt.Errorf("signal attachment %s: %w", id, err)
		}
		b, err := base64.StdEncoding.DecodeString(res.Data)
		if err != nil {
			return nil, fmt.Errorf("signal attachment %s: %w", id, err)
		}
		return io.NopCloser(bytes.NewReader(b)), nil
	}
}
