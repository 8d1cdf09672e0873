package emailtest

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/emersion/go-message/mail"
	"github.com/emersion/go-smtp"
)

// Sent is a mail the SMTP server took.
type Sent struct {
	From       string   // the envelope sender
	Rcpts      []string // the envelope recipients
	Raw        []byte
	MessageID  string // "<id>", as the other ids
	InReplyTo  string
	References []string
	To         []string // the To header's addresses
	Subject    string
	Text       string // the text/plain part
	Files      []File
	At         time.Time
}

// Root is the thread the mail belongs to: the first of its References,
// else the mail it answers, else itself.
func (m *Sent) Root() string {
	switch {
	case len(m.References) > 0:
		return m.References[0]
	case m.InReplyTo != "":
		return m.InReplyTo
	}
	return m.MessageID
}

// Attempt is one mail the bot tried to send, and the server's answer
// (250, or the failure answered).
type Attempt struct {
	At   time.Time
	Code int
	Mail *Sent
}

// Sent are the mails taken, in order.
func (s *Server) Sent() []Sent {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Sent(nil), s.sent...)
}

// Attempts are every send, answered or refused, in order.
func (s *Server) Attempts() []Attempt {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Attempt(nil), s.attempts...)
}

// Hold keeps every mail sent from now on unanswered after its data,
// until Release; a held mail whose client hangs up is not kept.
func (s *Server) Hold() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.holding = true
}

// Release answers the held mails and stops holding.
func (s *Server) Release() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.holding {
		s.holding = false
		close(s.release)
		s.release = make(chan struct{})
	}
}

// Held counts the mails held now.
func (s *Server) Held() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.held
}

// Fail answers the next send with code and message; a message holding
// "retry after N seconds" starts a wait, and a send before it has passed
// counts in EarlyRetries.
func (s *Server) Fail(code int, message string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.fails = append(s.fails, &smtp.SMTPError{Code: code, EnhancedCode: smtp.EnhancedCodeNotSet, Message: message})
}

// RateLimit answers the next send with a 451 asking to retry after
// seconds.
func (s *Server) RateLimit(seconds int) {
	s.Fail(451, fmt.Sprintf("Too many messages, retry after %d seconds", seconds))
}

// EarlyRetries counts the sends that came before a rate limit's wait.
func (s *Server) EarlyRetries() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.early
}

func parseSent(from string, rcpts []string, raw []byte) *Sent {
	m := &Sent{From: from, Rcpts: rcpts, Raw: raw}
	r, err := mail.CreateReader(bytes.NewReader(raw))
	if r == nil {
		m.Text = "unreadable mail: " + err.Error()
		return m
	}
	h := r.Header
	br := func(id string) string { return "<" + id + ">" }
	if id, _ := h.MessageID(); id != "" {
		m.MessageID = br(id)
	}
	if ids, _ := h.MsgIDList("In-Reply-To"); len(ids) > 0 {
		m.InReplyTo = br(ids[0])
	}
	refs, _ := h.MsgIDList("References")
	for _, id := range refs {
		m.References = append(m.References, br(id))
	}
	to, _ := h.AddressList("To")
	for _, a := range to {
		m.To = append(m.To, strings.ToLower(a.Address))
	}
	m.Subject, _ = h.Subject()
	for {
		p, err := r.NextPart()
		if err != nil {
			break
		}
		b, _ := io.ReadAll(p.Body)
		switch ph := p.Header.(type) {
		case *mail.InlineHeader:
			if ct, _, _ := ph.ContentType(); ct == "text/plain" && m.Text == "" {
				m.Text = strings.TrimRight(strings.ReplaceAll(string(b), "\r\n", "\n"), "\n")
			}
		case *mail.AttachmentHeader:
			name, _ := ph.Filename()
			ct, _, _ := ph.ContentType()
			m.Files = append(m.Files, File{Name: name, MIME: ct, Data: b})
		}
	}
	return m
}
