package email

import (
	"testing"

	"github.com/hermes-go/hermes/gateway/email/emailtest"
)

// What a person wrote is what the model reads: quotes, their
// attribution line, a quoted original and the signature are taken out,
// an answer written between quoted lines is kept, a mail in Latin-1 is
// read right, and a new mail with no body is its subject.
func TestTheNewTextOfAMail(t *testing.T) {
	latin1 := "From: alice@example.org\r\nTo: hermes@example.com\r\nSubject: x\r\nMessage-ID: <l1@example.org>\r\n" +
		"Content-Type: text/plain; charset=iso-8859-1\r\nContent-Transfer-Encoding: quoted-printable\r\n\r\nCaf=E9 cr=E8me\r\n"
	for _, c := range []struct {
		name string
		raw  []byte
		want string
	}{
		{"top-posted", emailtest.Mail{From: "a@example.org", MessageID: "<1@x>", InReplyTo: "<0@x>",
			Text: "Yes, go ahead.\n\nOn Sun, 6 Dec 2026, Hermes wrote:\n> Shall I?\n> \n"}.Bytes(), "Yes, go ahead."},
		{"interleaved", emailtest.Mail{From: "a@example.org", MessageID: "<2@x>", InReplyTo: "<0@x>",
			Text: "> first question\nfirst answer\n> second question\nsecond answer\n"}.Bytes(), "first answer\nsecond answer"},
		{"signature", emailtest.Mail{From: "a@example.org", MessageID: "<3@x>", Text: "The logs are attached.\n-- \nAlice\nACME Corp"}.Bytes(), "The logs are attached."},
		{"outlook", emailtest.Mail{From: "a@example.org", MessageID: "<4@x>", InReplyTo: "<0@x>",
			Text: "Thanks!\n\n-----Original Message-----\nFrom: Hermes\nSent: Sunday\nwhat you asked"}.Bytes(), "Thanks!"},
		{"subject only", emailtest.Mail{From: "a@example.org", MessageID: "<5@x>", Subject: "Is the build green?"}.Bytes(), "Is the build green?"},
		{"latin-1", []byte(latin1), "Café crème"},
	} {
		p, err := parseMail(c.raw, "1.1")
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if p.text != c.want {
			t.Errorf("%s: %q, want %q", c.name, p.text, c.want)
		}
	}
}

// Threads: a reply's root is the first of its References, else the
// mail it answers; a mail without a Message-ID gets one from its UID.
func TestThreadRoots(t *testing.T) {
	for _, c := range []struct {
		m    emailtest.Mail
		want string
	}{
		{emailtest.Mail{From: "a@example.org", MessageID: "<3@x>", InReplyTo: "<2@x>", References: []string{"<1@x>", "<2@x>"}}, "<1@x>"},
		{emailtest.Mail{From: "a@example.org", MessageID: "<3@x>", InReplyTo: "<2@x>"}, "<2@x>"},
		{emailtest.Mail{From: "a@example.org", MessageID: "<3@x>"}, "<3@x>"},
		{emailtest.Mail{From: "a@example.org"}, "<7.9@no-message-id.invalid>"},
	} {
		p, err := parseMail(c.m.Bytes(), "7.9")
		if err != nil || p.root() != c.want {
			t.Errorf("%+v: root %q, want %q (%v)", c.m, p.root(), c.want, err)
		}
	}
}
