package email

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/emersion/go-message/mail"
	"github.com/emersion/go-smtp"

	"github.com/hermes-go/hermes/gateway"
	"github.com/hermes-go/hermes/internal/lazyre"
)

// Send mails m to the people of its thread (reply-all), threaded under
// the mail it answers (ReplyTo, else the thread's latest) with
// In-Reply-To, References and a "Re: " subject. Buttons become a line
// telling which word to reply with.
func (a *Adapter) Send(ctx context.Context, m gateway.Outbound) (gateway.Sent, error) {
	t, root, err := a.threadFor(ctx, m.Chat.ChatID)
	if err != nil {
		return gateway.Sent{}, a.lookupError(err)
	}
	cs := choicesOf(m.Buttons)
	text := m.Text
	if line := renderChoices(cs); line != "" {
		text += "\n\n" + line
	}
	id := a.newMessageID()
	if len(cs) > 0 {
		// Known before the mail leaves: a reply may come back before
		// the server has answered the send.
		a.rememberCard(id, cs)
	}
	if err := a.mail(ctx, t, root, id, m.ReplyTo, t.To, text, nil); err != nil {
		return gateway.Sent{}, err
	}
	return gateway.Sent{MessageID: id}, nil
}

// Edit is refused for good: a sent mail cannot change (Limits.Edits is
// false, so the gateway does not ask).
func (a *Adapter) Edit(ctx context.Context, chat gateway.ChatRef, messageID string, m gateway.Outbound) error {
	return &gateway.SendError{Permanent: true, Err: errors.New("email: a sent mail cannot be edited")}
}

// Upload mails a file as an attachment, with the caption as the text.
func (a *Adapter) Upload(ctx context.Context, chat gateway.ChatRef, f gateway.File) (gateway.Sent, error) {
	t, root, err := a.threadFor(ctx, chat.ChatID)
	if err != nil {
		return gateway.Sent{}, a.lookupError(err)
	}
	data, err := os.ReadFile(f.Path)
	if err != nil {
		return gateway.Sent{}, &gateway.SendError{Permanent: true, Err: fmt.Errorf("email: reading the attachment: %w", err)}
	}
	name := f.Name
	if name == "" {
		name = filepath.Base(f.Path)
	}
	id := a.newMessageID()
	if err := a.mail(ctx, t, root, id, "", t.To, f.Caption, &file{name: name, data: data}); err != nil {
		return gateway.Sent{}, err
	}
	return gateway.Sent{MessageID: id}, nil
}

// Typing does nothing: mail has no such thing.
func (a *Adapter) Typing(ctx context.Context, chat gateway.ChatRef) error { return nil }

// lookupError classifies a failed thread lookup: a thread not in the
// folder stays unknown (permanent); a server that did not answer is
// retried.
func (a *Adapter) lookupError(err error) error {
	if errors.Is(err, errUnknownThread) {
		return &gateway.SendError{Permanent: true, Err: fmt.Errorf("email: %w", err)}
	}
	return fmt.Errorf("email: finding the thread: %w", err)
}

// answerOnly mails text to one person only, in reply to their mail: the
// answer to a reply that chose a button.
func (a *Adapter) answerOnly(ctx context.Context, root string, to, inReplyTo, text string) error {
	t, _, err := a.threadFor(ctx, root)
	if err != nil {
		return a.lookupError(err)
	}
	return a.mail(ctx, t, root, a.newMessageID(), inReplyTo, []string{to}, text, nil)
}

// mail composes and sends one mail, id, of thread t (root "" starts a
// new one) and notes it in the thread.
func (a *Adapter) mail(ctx context.Context, t *thread, root, id, replyTo string, to []string, text string, f *file) error {
	raw, err := a.compose(t, id, replyTo, to, text, f)
	if err != nil {
		return &gateway.SendError{Permanent: true, Err: fmt.Errorf("email: composing: %w", err)}
	}
	if root == "" {
		root = id // the mail starts a thread the addresses may answer
	}
	// Noted before it leaves, so that a reply to it, which may come
	// back before the server has answered, is noted after it.
	if err := a.recordSent(ctx, root, t, id, true); err != nil {
		a.log.Error("email: sent mail not noted in its thread", "message", id, "err", err)
	}
	if err := a.submit(ctx, to, raw); err != nil {
		if err := a.recordSent(ctx, root, t, id, false); err != nil {
			a.log.Error("email: unsent mail not taken out of its thread", "message", id, "err", err)
		}
		return err
	}
	return nil
}

func (a *Adapter) newMessageID() string {
	b := make([]byte, 12)
	rand.Read(b)
	return "<" + strconv.FormatInt(a.o.Now().Unix(), 36) + "." + hex.EncodeToString(b) + "@" + a.domain + ">"
}

// ownIDPattern matches the Message-IDs newMessageID makes.
var ownIDPattern = lazyre.New(`^<[0-9a-z]+\.[0-9a-f]{24}@`)

// ownID says id is one of the bot's Message-IDs.
func (a *Adapter) ownID(id string) bool {
	return ownIDPattern.Get().MatchString(id) && strings.HasSuffix(id, "@"+a.domain+">")
}

func unbracket(id string) string { return strings.TrimSuffix(strings.TrimPrefix(id, "<"), ">") }

// compose writes the mail: text/plain in UTF-8, with f attached.
func (a *Adapter) compose(t *thread, id, replyTo string, to []string, text string, f *file) ([]byte, error) {
	var h mail.Header
	h.SetDate(a.o.Now())
	h.SetAddressList("From", []*mail.Address{{Address: a.self}})
	var rcpts []*mail.Address
	for _, ad := range to {
		rcpts = append(rcpts, &mail.Address{Address: ad})
	}
	h.SetAddressList("To", rcpts)
	h.SetMessageID(unbracket(id))
	subject := t.Subject
	if len(t.Refs) > 0 {
		if !strings.HasPrefix(strings.ToLower(subject), "re:") {
			subject = "Re: " + subject
		}
		if replyTo == "" {
			replyTo = t.last()
		}
		refs := append([]string(nil), t.Refs...)
		if !contains(refs, replyTo) {
			refs = append(refs, replyTo)
		}
		var ids []string
		for _, r := range refs {
			ids = append(ids, unbracket(r))
		}
		h.SetMsgIDList("In-Reply-To", []string{unbracket(replyTo)})
		h.SetMsgIDList("References", ids)
	} else if subject == "" {
		subject = firstLine(text)
	}
	h.SetSubject(subject)
	var b bytes.Buffer
	if f == nil {
		h.SetContentType("text/plain", map[string]string{"charset": "utf-8"})
		w, err := mail.CreateSingleInlineWriter(&b, h)
		if err != nil {
			return nil, err
		}
		io.WriteString(w, text)
		if err := w.Close(); err != nil {
			return nil, err
		}
		return b.Bytes(), nil
	}
	mw, err := mail.CreateWriter(&b, h)
	if err != nil {
		return nil, err
	}
	var th mail.InlineHeader
	th.SetContentType("text/plain", map[string]string{"charset": "utf-8"})
	tw, err := mw.CreateSingleInline(th)
	if err != nil {
		return nil, err
	}
	io.WriteString(tw, text)
	tw.Close()
	var ah mail.AttachmentHeader
	ah.SetFilename(f.name)
	ah.SetContentType(contentType(f.name), nil)
	aw, err := mw.CreateAttachment(ah)
	if err != nil {
		return nil, err
	}
	aw.Write(f.data)
	aw.Close()
	if err := mw.Close(); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

func contains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}

// firstLine is a subject for a mail that starts a thread.
func firstLine(text string) string {
	l, _, _ := strings.Cut(strings.TrimSpace(text), "\n")
	if r := []rune(l); len(r) > 70 {
		l = string(r[:70]) + "…"
	}
	if l == "" {
		l = "Message from hermes"
	}
	return l
}

// submit hands the mail to the SMTP server.
func (a *Adapter) submit(ctx context.Context, to []string, raw []byte) error {
	c, conn, err := a.dialSMTP(ctx)
	if err != nil {
		return sendError(err)
	}
	defer c.Close()
	stop := context.AfterFunc(ctx, func() { conn.Close() })
	defer stop()
	if err := c.SendMail(a.self, to, bytes.NewReader(raw)); err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return sendError(err)
	}
	c.Quit()
	return nil
}

// retryHint reads a wait from a 4xx's text ("retry after 30 seconds",
// "try again in 2 minutes").
var retryHint = lazyre.New(`(?i)(?:retry|try again)\D{0,20}?(\d+)\s*(s|sec|secs|seconds?|m|mins?|minutes?)\b`)

// sendError classifies an SMTP failure: a 4xx is a wait (its own hint,
// else DefaultTempFailWait) after which the gateway sends again; a 5xx
// (a refused recipient, a refused login, a mail too large) is permanent;
// anything else (the network) is retried with backoff.
func sendError(err error) error {
	var se *smtp.SMTPError
	if !errors.As(err, &se) {
		return fmt.Errorf("email: smtp: %w", err)
	}
	err = fmt.Errorf("email: smtp: %w", err)
	switch {
	case se.Code >= 400 && se.Code < 500:
		wait := DefaultTempFailWait
		if m := retryHint.Get().FindStringSubmatch(se.Message); m != nil {
			n, _ := strconv.Atoi(m[1])
			wait = time.Duration(max(n, 1)) * time.Second
			if strings.HasPrefix(strings.ToLower(m[2]), "m") {
				wait = time.Duration(max(n, 1)) * time.Minute
			}
		}
		return &gateway.SendError{RetryAfter: wait, Status: se.Code, Err: err}
	case se.Code >= 500:
		return &gateway.SendError{Permanent: true, Status: se.Code, Err: err}
	}
	return err
}

func contentType(name string) string {
	switch strings.ToLower(filepath.Ext(name)) {
	case ".png":
		return "image/png"
	case ".jpg", ".jpeg":
		return "image/jpeg"
	case ".gif":
		return "image/gif"
	case ".pdf":
		return "application/pdf"
	case ".txt", ".md", ".log":
		return "text/plain"
	}
	return "application/octet-stream"
}
