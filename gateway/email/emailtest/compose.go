package emailtest

import (
	"encoding/base64"
	"fmt"
	"mime"
	"strings"
	"time"
)

// Mail is a mail a person sends, for Deliver.
type Mail struct {
	From       string // "Alice <alice@example.org>" or an address
	To, Cc     []string
	Subject    string
	MessageID  string // "<id@host>"
	InReplyTo  string
	References []string
	Text       string // the text/plain part ("" for none)
	HTML       string // the text/html part ("" for none)
	// AuthResults are Authentication-Results headers, as the receiving
	// server adds them ("mx.example.com; spf=pass ... dkim=pass ...").
	AuthResults []string
	Headers     map[string]string
	Files       []File
	Date        time.Time
}

// File is an attachment.
type File struct {
	Name, MIME string
	Data       []byte
}

// Bytes is the mail in RFC 5322 form.
func (m Mail) Bytes() []byte {
	var b strings.Builder
	h := func(k, v string) {
		if v != "" {
			fmt.Fprintf(&b, "%s: %s\r\n", k, v)
		}
	}
	for _, ar := range m.AuthResults {
		h("Authentication-Results", ar)
	}
	date := m.Date
	if date.IsZero() {
		date = time.Date(2026, 12, 6, 9, 0, 0, 0, time.UTC)
	}
	h("Date", date.Format(time.RFC1123Z))
	h("From", m.From)
	h("To", strings.Join(m.To, ", "))
	h("Cc", strings.Join(m.Cc, ", "))
	h("Subject", mime.QEncoding.Encode("utf-8", m.Subject))
	h("Message-ID", m.MessageID)
	h("In-Reply-To", m.InReplyTo)
	h("References", strings.Join(m.References, " "))
	for k, v := range m.Headers {
		h(k, v)
	}
	h("MIME-Version", "1.0")
	var parts []string
	if m.Text != "" {
		parts = append(parts, "Content-Type: text/plain; charset=utf-8\r\nContent-Transfer-Encoding: 8bit\r\n\r\n"+m.Text)
	}
	if m.HTML != "" {
		parts = append(parts, "Content-Type: text/html; charset=utf-8\r\nContent-Transfer-Encoding: 8bit\r\n\r\n"+m.HTML)
	}
	if len(parts) == 2 {
		parts = []string{"Content-Type: multipart/alternative; boundary=alt\r\n\r\n--alt\r\n" + parts[0] + "\r\n--alt\r\n" + parts[1] + "\r\n--alt--"}
	}
	for _, f := range m.Files {
		parts = append(parts, fmt.Sprintf("Content-Type: %s\r\nContent-Disposition: attachment; filename=%q\r\nContent-Transfer-Encoding: base64\r\n\r\n%s",
			f.MIME, f.Name, base64.StdEncoding.EncodeToString(f.Data)))
	}
	switch len(parts) {
	case 0:
		b.WriteString("Content-Type: text/plain; charset=utf-8\r\n\r\n")
	case 1:
		b.WriteString(parts[0])
	default:
		b.WriteString("Content-Type: multipart/mixed; boundary=mixed\r\n\r\n")
		for _, p := range parts {
			b.WriteString("--mixed\r\n" + p + "\r\n")
		}
		b.WriteString("--mixed--")
	}
	b.WriteString("\r\n")
	return []byte(b.String())
}
