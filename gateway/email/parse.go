package email

import (
	"bytes"
	"fmt"
	"io"
	"mime"
	"strings"

	"github.com/emersion/go-message"
	_ "github.com/emersion/go-message/charset" // mail in ISO-8859-x, Windows-125x, ...
	"github.com/emersion/go-message/mail"
)

// maxAttachmentBytes bounds one attachment kept for the gateway.
const maxAttachmentBytes = 25 << 20

// parsed is what the adapter reads of a mail.
type parsed struct {
	messageID  string   // "<id@host>"
	inReplyTo  string   // the first In-Reply-To, "" for none
	references []string // oldest first
	from       *mail.Address
	to, cc     []*mail.Address
	subject    string
	text       string // the new text of the mail: quotes and signature taken out
	auth       authResults
	automatic  bool // Auto-Submitted other than "no": a vacation reply, a bounce
	files      []file
}

type file struct {
	name, mime string
	data       []byte
}

// root is the thread's first mail: the first of References, else the
// mail it replies to, else itself.
func (p *parsed) root() string {
	if len(p.references) > 0 {
		return p.references[0]
	}
	if p.inReplyTo != "" {
		return p.inReplyTo
	}
	return p.messageID
}

func bracket(id string) string {
	if id == "" {
		return ""
	}
	return "<" + id + ">"
}

// parseMail reads a raw RFC 5322 mail; fallbackID names a mail without a
// Message-ID.
func parseMail(raw []byte, fallbackID string) (*parsed, error) {
	r, err := mail.CreateReader(bytes.NewReader(raw))
	if err != nil && !message.IsUnknownCharset(err) && !message.IsUnknownEncoding(err) {
		return nil, fmt.Errorf("reading the mail: %w", err)
	}
	h := r.Header
	p := &parsed{}
	if id, _ := h.MessageID(); id != "" {
		p.messageID = bracket(id)
	} else {
		p.messageID = "<" + fallbackID + "@no-message-id.invalid>"
	}
	if ids, _ := h.MsgIDList("In-Reply-To"); len(ids) > 0 {
		p.inReplyTo = bracket(ids[0])
	}
	refs, _ := h.MsgIDList("References")
	for _, id := range refs {
		p.references = append(p.references, bracket(id))
	}
	if from, _ := h.AddressList("From"); len(from) > 0 {
		p.from = from[0]
		p.from.Address = strings.ToLower(p.from.Address)
	}
	p.to, _ = h.AddressList("To")
	p.cc, _ = h.AddressList("Cc")
	p.subject, _ = h.Subject()
	p.auth = readAuthResults(h.Values("Authentication-Results"))
	if v := strings.ToLower(strings.TrimSpace(h.Get("Auto-Submitted"))); v != "" && v != "no" {
		p.automatic = true
	}
	var plain, html string
	for {
		part, err := r.NextPart()
		if err == io.EOF {
			break
		}
		if part == nil || (err != nil && !message.IsUnknownCharset(err) && !message.IsUnknownEncoding(err)) {
			break // a truncated or broken mail: keep what was read
		}
		switch ph := part.Header.(type) {
		case *mail.InlineHeader:
			ct, params, _ := ph.ContentType()
			name := params["name"]
			switch {
			case ct == "text/plain" && name == "" && plain == "":
				b, _ := io.ReadAll(io.LimitReader(part.Body, maxAttachmentBytes))
				plain = string(b)
			case ct == "text/html" && name == "" && html == "":
				b, _ := io.ReadAll(io.LimitReader(part.Body, maxAttachmentBytes))
				html = string(b)
			case strings.HasPrefix(ct, "text/") && name == "":
				// another alternative (text/enriched, text/calendar): skipped
			default:
				p.addFile(name, ct, part.Body)
			}
		case *mail.AttachmentHeader:
			ct, _, _ := ph.ContentType()
			name, _ := ph.Filename()
			p.addFile(name, ct, part.Body)
		}
	}
	body := plain
	if strings.TrimSpace(body) == "" && html != "" {
		body = htmlToText(html)
	}
	p.text = newText(body)
	if p.text == "" && p.inReplyTo == "" {
		p.text = strings.TrimSpace(p.subject) // a new mail that says it all in its subject
	}
	return p, nil
}

func (p *parsed) addFile(name, ct string, body io.Reader) {
	data, err := io.ReadAll(io.LimitReader(body, maxAttachmentBytes+1))
	if err != nil || len(data) > maxAttachmentBytes {
		return
	}
	if ct == "" {
		ct = "application/octet-stream"
	}
	if name == "" {
		ext := ".bin"
		if exts, _ := mime.ExtensionsByType(ct); len(exts) > 0 {
			ext = exts[0]
		}
		name = fmt.Sprintf("attachment-%d%s", len(p.files)+1, ext)
	}
	p.files = append(p.files, file{name: name, mime: ct, data: data})
}

// newText keeps what a reply adds: lines quoted with ">" and the line
// introducing them ("On ... wrote:"), a forwarded or quoted original
// ("-----Original Message-----" and below) and the signature ("-- ")
// are taken out. An answer written between quoted lines is kept.
func newText(body string) string {
	body = strings.ReplaceAll(body, "\r\n", "\n")
	lines := strings.Split(body, "\n")
	var out []string
	for i, l := range lines {
		t := strings.TrimSpace(l)
		if l == "-- " || strings.HasPrefix(t, "-----Original Message-----") || strings.HasPrefix(t, "________________________________") {
			break
		}
		if strings.HasPrefix(t, ">") {
			continue
		}
		if attribution(t) && nextQuoted(lines[i+1:]) {
			continue
		}
		out = append(out, strings.TrimRight(l, " \t"))
	}
	return strings.TrimSpace(strings.Join(out, "\n"))
}

func attribution(t string) bool {
	return strings.HasSuffix(t, "wrote:") || strings.HasSuffix(t, "a écrit :") || strings.HasSuffix(t, "schrieb:")
}

// nextQuoted says the first non-empty line of lines is quoted.
func nextQuoted(lines []string) bool {
	for _, l := range lines {
		if t := strings.TrimSpace(l); t != "" {
			return strings.HasPrefix(t, ">")
		}
	}
	return false
}

// authResults is what the receiving server's Authentication-Results
// headers say of SPF, DKIM and DMARC.
type authResults struct {
	spf, dkim, dmarc string // "pass", "fail", "none", ...; "" when absent
}

// failed says a check failed: the From address may be forged.
func (a authResults) failed() bool {
	return a.spf == "fail" || a.dkim == "fail" || a.dmarc == "fail"
}

func (a authResults) String() string {
	show := func(s string) string {
		if s == "" {
			return "absent"
		}
		return s
	}
	return "spf=" + show(a.spf) + " dkim=" + show(a.dkim) + " dmarc=" + show(a.dmarc)
}

// readAuthResults reads every Authentication-Results header (RFC 8601).
// Each result is the topmost header's (servers add theirs on top, so the
// first is the receiving server's), except that a "fail" in any header
// wins: a header forged by the sender can hide nothing, only refuse its
// own mail.
func readAuthResults(values []string) authResults {
	var a authResults
	set := func(dst *string, v string) {
		if *dst == "" || v == "fail" {
			*dst = v
		}
	}
	for _, v := range values {
		for _, field := range strings.FieldsFunc(strings.ToLower(v), func(r rune) bool { return r == ';' || r == ' ' || r == '\t' || r == '\n' || r == '\r' }) {
			method, result, ok := strings.Cut(field, "=")
			if !ok {
				continue
			}
			switch method {
			case "spf":
				set(&a.spf, result)
			case "dkim":
				set(&a.dkim, result)
			case "dmarc":
				set(&a.dmarc, result)
			}
		}
	}
	return a
}
