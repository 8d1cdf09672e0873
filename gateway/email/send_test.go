package email

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hermes-go/hermes/gateway"
	"github.com/hermes-go/hermes/gateway/email/emailtest"
)

// An SMTP 4xx is a wait the gateway honours (the server's own hint,
// else DefaultTempFailWait); a 5xx is refused for good.
func TestSendFailuresAreClassified(t *testing.T) {
	f := newFixture(t, emailtest.Options{})
	ctx := context.Background()
	out := gateway.Outbound{Chat: gateway.ChatRef{ChatID: "alice@example.org"}, Text: "hi"}
	for _, c := range []struct {
		code      int
		msg       string
		wait      time.Duration
		permanent bool
	}{
		{451, "Too many messages, retry after 3 seconds", 3 * time.Second, false},
		{421, "Try again in 2 minutes", 2 * time.Minute, false},
		{450, "Mailbox busy", DefaultTempFailWait, false},
		{550, "No such user", 0, true},
		{552, "Message too large", 0, true},
	} {
		f.srv.Fail(c.code, c.msg)
		_, err := f.a.Send(ctx, out)
		se, ok := gateway.AsSendError(err)
		if !ok || se.RetryAfter != c.wait || se.Permanent != c.permanent || se.Status != c.code {
			t.Errorf("%d %s: %v (%+v)", c.code, c.msg, err, se)
		}
	}
	if n := len(f.srv.Sent()); n != 0 {
		t.Fatalf("%d refused mails were kept", n)
	}
	if _, err := f.a.Send(ctx, out); err != nil {
		t.Fatalf("a send after the failures: %v", err)
	}
}

// Buttons are a line telling which word to reply with; a reply to the
// card whose first word is one of them is a Click with the button's
// data (each reply once), answered to its sender alone; any other reply
// is a message.
func TestApprovalByReply(t *testing.T) {
	f := newFixture(t, emailtest.Options{})
	f.run(t)
	m := f.mail("delete it")
	m.Cc = []string{"bob@example.org"}
	f.deliver(t, m)
	in := f.waitMessages(t, 1)[0]
	card, err := f.a.Send(context.Background(), gateway.Outbound{Chat: in.Chat, Text: "Run rm -rf victim?", Buttons: [][]gateway.Button{{
		{Label: "Once", Data: "approve:1:once"}, {Label: "Session", Data: "approve:1:session"},
		{Label: "Always (admins only)", Data: "approve:1:always"}, {Label: "Deny", Data: "approve:1:deny"}}}})
	if err != nil {
		t.Fatal(err)
	}
	sent := f.waitSent(t, 1)[0]
	if want := "Run rm -rf victim?\n\nReply with one word: once, session, always (admins only) or deny."; sent.Text != want {
		t.Fatalf("the card reads %q, want %q", sent.Text, want)
	}
	reply := func(from, id, text string) {
		r := emailtest.Mail{From: from, To: []string{"hermes@example.com"}, Subject: "Re: Hello", MessageID: id,
			InReplyTo: card.MessageID, References: []string{m.MessageID, card.MessageID}, Text: text}
		f.deliver(t, r)
	}
	reply("bob@example.org", "<b1@example.org>", "Once\n\nOn Sunday hermes wrote:\n> Run rm -rf victim?")
	reply("alice@example.org", "<a1@example.org>", "what does it delete?")
	reply("alice@example.org", "<a2@example.org>", "approve.")
	f.srv.Deliver(t, emailtest.Mail{From: "alice@example.org", To: []string{"hermes@example.com"}, MessageID: "<a2@example.org>",
		InReplyTo: card.MessageID, Text: "approve."}.Bytes()) // delivered twice
	reply("alice@example.org", "<a3@example.org>", "deny")
	f.h.waitFor(t, "three clicks and a message", func() bool { return len(f.h.clicked()) >= 3 && len(f.h.messages()) >= 2 })
	cl := f.h.clicked()
	if len(cl) != 3 || cl[0].UserID != "bob@example.org" || cl[0].Data != "approve:1:once" || cl[0].MessageID != card.MessageID ||
		cl[0].Chat != in.Chat || cl[1].UserID != "alice@example.org" || cl[1].Data != "approve:1:once" || cl[2].Data != "approve:1:deny" {
		t.Fatalf("clicks: %+v", cl)
	}
	if ms := f.h.messages(); ms[1].Text != "what does it delete?" {
		t.Fatalf("the question was handed over as %+v", ms[1])
	}
	if err := cl[0].Answer(context.Background(), "Only the person who asked can answer this."); err != nil {
		t.Fatal(err)
	}
	ans := f.waitSent(t, 2)[1]
	if strings.Join(ans.Rcpts, ",") != "bob@example.org" || ans.InReplyTo != "<b1@example.org>" || ans.Text != "Only the person who asked can answer this." {
		t.Fatalf("the answer to bob: %+v", ans)
	}
}

// A delivery to a thread this process never read (`hermes cron run`)
// finds the thread in the folder; addresses start a new thread; an
// unknown thread is refused for good.
func TestSendsToThreadsFoundInTheFolderAndToAddresses(t *testing.T) {
	f := newFixture(t, emailtest.Options{})
	root := emailtest.Mail{From: "alice@example.org", To: []string{"hermes@example.com"}, Cc: []string{"bob@example.org"},
		Subject: "Team", MessageID: "<team@example.org>", Text: "the team's thread"}
	f.deliver(t, root)
	ctx := context.Background()
	if _, err := f.a.Send(ctx, gateway.Outbound{Chat: gateway.ChatRef{ChatID: "<team@example.org>"}, Text: "Report"}); err != nil {
		t.Fatal(err)
	}
	got := f.waitSent(t, 1)[0]
	if strings.Join(got.Rcpts, ",") != "alice@example.org,bob@example.org" || got.InReplyTo != "<team@example.org>" || got.Subject != "Re: Team" {
		t.Fatalf("the report: %+v", got)
	}
	if _, err := f.a.Send(ctx, gateway.Outbound{Chat: gateway.ChatRef{ChatID: "ops@example.org, Alice@Example.org"}, Text: "Nightly report\nall green"}); err != nil {
		t.Fatal(err)
	}
	got = f.waitSent(t, 2)[1]
	if strings.Join(got.Rcpts, ",") != "ops@example.org,alice@example.org" || got.InReplyTo != "" || got.Subject != "Nightly report" {
		t.Fatalf("the new thread: %+v", got)
	}
	_, err := f.a.Send(ctx, gateway.Outbound{Chat: gateway.ChatRef{ChatID: "<nowhere@example.org>"}, Text: "x"})
	if se, ok := gateway.AsSendError(err); !ok || !se.Permanent {
		t.Fatalf("a send to an unknown thread: %v", err)
	}
}

// Upload mails the file as an attachment with the caption as text;
// Edit is refused for good.
func TestUploadAndEdit(t *testing.T) {
	f := newFixture(t, emailtest.Options{})
	p := filepath.Join(t.TempDir(), "report.txt")
	os.WriteFile(p, []byte("numbers"), 0o600)
	if _, err := f.a.Upload(context.Background(), gateway.ChatRef{ChatID: "alice@example.org"}, gateway.File{Path: p, Caption: "The report"}); err != nil {
		t.Fatal(err)
	}
	got := f.waitSent(t, 1)[0]
	if got.Text != "The report" || len(got.Files) != 1 || got.Files[0].Name != "report.txt" || string(got.Files[0].Data) != "numbers" {
		t.Fatalf("the upload: %+v", got)
	}
	err := f.a.Edit(context.Background(), gateway.ChatRef{ChatID: "alice@example.org"}, "<x@example.com>", gateway.Outbound{Text: "y"})
	if se, ok := gateway.AsSendError(err); !ok || !se.Permanent {
		t.Fatalf("Edit: %v", err)
	}
}

// Without TLS a password goes only to a loopback host: imap:// and
// smtp:// to any other host must upgrade with STARTTLS, and a server
// that offers none is never sent the login.
func TestNoPasswordInClearBeyondLoopback(t *testing.T) {
	for raw, plain := range map[string]bool{"imap://127.0.0.1:1": true, "imap://localhost": true, "imap://[::1]:143": true,
		"imap://mail.example.org": false, "imaps://127.0.0.1": false} {
		e, err := parseEndpoint(raw, "imap", 143, 993)
		if err != nil || e.plain != plain {
			t.Errorf("%s: plain %v, want %v (%v)", raw, e.plain, plain, err)
		}
	}
	if _, err := parseEndpoint("http://mail.example.org", "imap", 143, 993); err == nil {
		t.Error("an http URL was taken")
	}
	// The test server has no STARTTLS: treated as a remote host, the
	// adapter hangs up before logging in.
	f := newFixture(t, emailtest.Options{})
	f.a.imap.plain, f.a.smtp.plain = false, false
	h := newRecorder()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- f.a.Run(ctx, h) }()
	h.waitFor(t, "a failed connection", func() bool { return h.lastState().Platform != "" })
	s := h.lastState()
	cancel()
	<-done
	if s.Connected || !strings.Contains(s.Detail, "STARTTLS") {
		t.Fatalf("state %+v", s)
	}
	_, err := f.a.Send(context.Background(), gateway.Outbound{Chat: gateway.ChatRef{ChatID: "alice@example.org"}, Text: "x"})
	if err == nil || !strings.Contains(err.Error(), "STARTTLS") {
		t.Fatalf("Send without TLS: %v", err)
	}
	if w := f.srv.IMAPWire(); strings.Contains(w, "LOGIN") || strings.Contains(w, f.srv.Password()) {
		t.Fatalf("the login crossed the wire in clear:\n%s", w)
	}
	if len(f.srv.Sent()) != 0 {
		t.Fatal("a mail was sent without TLS")
	}
}

// Where the servers offer STARTTLS, a host that is not loopback is
// reached through it: mail is read and sent over TLS, with the
// certificate checked.
func TestStartTLS(t *testing.T) {
	srv := emailtest.NewServer(t, emailtest.Options{StartTLS: true})
	f := &fixture{srv: srv, kv: gateway.NewMemoryKV()}
	a, err := New(Options{IMAPURL: srv.IMAPURL(), SMTPURL: srv.SMTPURL(), User: srv.User(), Password: srv.Password(),
		TLSConfig: srv.ClientTLS(), KV: f.kv, Backoff: 10 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	a.imap.plain, a.smtp.plain = false, false // as for a remote host
	f.a = a
	f.run(t)
	f.deliver(t, f.mail("over TLS"))
	in := f.waitMessages(t, 1)[0]
	if _, err := f.a.Send(context.Background(), gateway.Outbound{Chat: in.Chat, Text: "answered over TLS"}); err != nil {
		t.Fatal(err)
	}
	if got := f.waitSent(t, 1)[0]; got.Text != "answered over TLS" {
		t.Fatalf("sent %+v", got)
	}
	// (The wire shows the IMAP of the session, decrypted.)
	w := srv.IMAPWire()
	if tls, login := strings.Index(w, "OK Begin TLS negotiation"), strings.Index(w, "LOGIN"); tls < 0 || login < tls {
		t.Fatalf("the login did not wait for TLS:\n%s", w)
	}
	// A certificate nobody vouches for is refused.
	b, _ := New(Options{IMAPURL: srv.IMAPURL(), SMTPURL: srv.SMTPURL(), User: srv.User(), Password: srv.Password()})
	b.smtp.plain = false
	_, err = b.Send(context.Background(), gateway.Outbound{Chat: gateway.ChatRef{ChatID: "alice@example.org"}, Text: "x"})
	if err == nil || !strings.Contains(err.Error(), "certificate") {
		t.Fatalf("an unknown certificate: %v", err)
	}
}
