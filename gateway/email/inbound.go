package email

import (
	"bytes"
	"context"
	"io"
	"strings"

	"github.com/hermes-go/hermes/gateway"
)

// handle turns one mail into a Message or a Click for the handler. Mail
// the bot must not answer is dropped with a log line: its own, automatic
// replies (vacation notices, bounces: answering them loops), and mail
// whose Authentication-Results show SPF, DKIM or DMARC failing (its
// From may be forged, and a reply would go to whoever was impersonated).
func (r *run) handle(ctx context.Context, raw []byte, fallbackID string) error {
	a := r.a
	p, err := parseMail(raw, fallbackID)
	if err != nil {
		a.log.Error("email: unreadable mail skipped", "uid", fallbackID, "err", err)
		return nil
	}
	log := a.log.With("message", p.messageID, "auth", p.auth.String())
	switch {
	case p.from == nil || p.from.Address == "":
		log.Warn("email: mail without a sender skipped")
		return nil
	case p.from.Address == a.self:
		return nil
	case p.automatic:
		log.Info("email: automatic mail skipped", "from", p.from.Address)
		return nil
	case p.auth.failed():
		log.Warn("email: mail failing sender authentication dropped: its From may be forged", "from", p.from.Address)
		return nil
	}
	root := p.root()
	people := a.people(p)
	log.Info("email received", "from", p.from.Address, "thread", root)

	if c, ok := a.cardChoice(p); ok {
		who, replyID := p.from.Address, p.messageID
		r.h.Click(ctx, gateway.Click{Platform: "email", Chat: gateway.ChatRef{ChatID: root}, MessageID: p.inReplyTo,
			UserID: who, Data: c.data,
			Answer: func(ctx context.Context, text string) error { return a.answerOnly(ctx, root, who, replyID, text) }})
		return nil
	}
	if err := a.recordInbound(ctx, root, p, people); err != nil {
		return err
	}
	kind, addressed := gateway.Group, a.addressed(p)
	if len(people) == 1 {
		kind, addressed = gateway.DM, true
	}
	name := p.from.Name
	if name == "" {
		name = p.from.Address
	}
	in := gateway.Inbound{Platform: "email", Chat: gateway.ChatRef{ChatID: root}, ChatType: kind, MessageID: p.messageID,
		UserID: p.from.Address, UserName: name, Text: p.text, Addressed: addressed}
	for _, f := range p.files {
		data := f.data
		in.Attachments = append(in.Attachments, gateway.Attachment{Kind: kindOf(f.mime), Name: f.name, MIME: f.mime,
			Size: int64(len(data)),
			Open: func(context.Context) (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(data)), nil }})
	}
	return r.h.Message(ctx, in)
}

func kindOf(mime string) string {
	for _, k := range []string{"image", "audio", "video"} {
		if strings.HasPrefix(mime, k+"/") {
			return k
		}
	}
	return "file"
}

// addressed says a mail in a group thread speaks to the bot, as a
// mention would: the bot is on its To line (not only on Cc), or it
// answers one of the bot's mails.
func (a *Adapter) addressed(p *parsed) bool {
	for _, ad := range p.to {
		if strings.EqualFold(ad.Address, a.self) {
			return true
		}
	}
	return a.ownID(p.inReplyTo)
}
