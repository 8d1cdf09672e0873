package email

import (
	"context"
	"errors"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hermes-go/hermes/gateway"
	"github.com/hermes-go/hermes/gateway/email/emailtest"
)

// A mail to the bot is one message of the thread its root Message-ID
// names; a reply in it is the same chat, and its quoted text is not
// handed over again.
func TestAMailAndItsReplyAreOneThread(t *testing.T) {
	f := newFixture(t, emailtest.Options{})
	f.run(t)
	first := f.mail("Can you check the build?")
	f.deliver(t, first)
	reply := f.mail("Also the tests, please.\n\nOn Sun, Dec 6, 2026 at 9:00 Alice wrote:\n> Can you check the build?\n")
	reply.InReplyTo, reply.References, reply.Subject = first.MessageID, []string{first.MessageID}, "Re: Hello"
	f.deliver(t, reply)
	ms := f.waitMessages(t, 2)
	for i, want := range []string{"Can you check the build?", "Also the tests, please."} {
		m := ms[i]
		if m.Chat.ChatID != first.MessageID || m.ChatType != gateway.DM || m.UserID != "alice@example.org" ||
			m.UserName != "Alice" || m.Text != want || !m.Addressed || m.Platform != "email" {
			t.Fatalf("message %d: %+v", i, m)
		}
	}
	if ms[1].MessageID != reply.MessageID {
		t.Fatalf("the message id is %q, want the Message-ID %q", ms[1].MessageID, reply.MessageID)
	}
}

// A reply is mailed from the bot's address to the thread's people, with
// In-Reply-To the mail it answers, References from the root, and a
// "Re: " subject; a thread with more people is a group, answered to all.
func TestRepliesAreThreadedToEveryone(t *testing.T) {
	f := newFixture(t, emailtest.Options{})
	f.run(t)
	m := f.mail("Team question")
	m.Cc = []string{"Bob <bob@example.org>"}
	f.deliver(t, m)
	in := f.waitMessages(t, 1)[0]
	if in.ChatType != gateway.Group {
		t.Fatalf("a thread with alice and bob is %q", in.ChatType)
	}
	sent, err := f.a.Send(context.Background(), gateway.Outbound{Chat: in.Chat, Text: "An answer"})
	if err != nil {
		t.Fatal(err)
	}
	got := f.waitSent(t, 1)[0]
	if got.MessageID != sent.MessageID || got.From != "hermes@example.com" || got.InReplyTo != m.MessageID ||
		strings.Join(got.References, " ") != m.MessageID || got.Subject != "Re: Hello" || got.Text != "An answer" ||
		strings.Join(got.Rcpts, ",") != "alice@example.org,bob@example.org" {
		t.Fatalf("the reply: %+v", got)
	}
	// A second reply follows the first.
	f.a.Send(context.Background(), gateway.Outbound{Chat: in.Chat, Text: "And more"})
	second := f.waitSent(t, 2)[1]
	if second.InReplyTo != sent.MessageID || strings.Join(second.References, " ") != m.MessageID+" "+sent.MessageID {
		t.Fatalf("the second reply: in reply to %s, references %v", second.InReplyTo, second.References)
	}
}

// An HTML-only mail is read as its text; an image is an image
// attachment (for vision) and a PDF a file, both with their content.
func TestHTMLAndAttachments(t *testing.T) {
	f := newFixture(t, emailtest.Options{})
	f.run(t)
	m := f.mail("")
	m.HTML = `<html><head><style>p{color:red}</style></head><body><p>Look at <b>this</b>:</p><ul><li>one</li><li>two</li></ul>` +
		`<p>See <a href="https://example.org/x">the page</a></p><script>alert(1)</script></body></html>`
	m.Files = []emailtest.File{{Name: "shot.png", MIME: "image/png", Data: []byte("PNGDATA")}, {Name: "r.pdf", MIME: "application/pdf", Data: []byte("PDF")}}
	f.deliver(t, m)
	in := f.waitMessages(t, 1)[0]
	if want := "Look at this:\n\n- one\n- two\n\nSee the page (https://example.org/x)"; in.Text != want {
		t.Fatalf("the text is %q, want %q", in.Text, want)
	}
	if len(in.Attachments) != 2 || in.Attachments[0].Kind != "image" || in.Attachments[0].Name != "shot.png" ||
		in.Attachments[1].Kind != "file" || in.Attachments[1].MIME != "application/pdf" {
		t.Fatalf("attachments %+v", in.Attachments)
	}
	rc, err := in.Attachments[0].Open(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(rc)
	if string(b) != "PNGDATA" || in.Attachments[0].Size != 7 {
		t.Fatalf("the image holds %q (size %d)", b, in.Attachments[0].Size)
	}
}

// Mail whose Authentication-Results show SPF, DKIM or DMARC failing is
// never handed over, even from an allowed address; passing mail is.
// Automatic mail (a vacation reply) and the bot's own mail are not
// handed over either.
func TestForgedAndAutomaticMailIsDropped(t *testing.T) {
	f := newFixture(t, emailtest.Options{})
	f.run(t)
	for _, ar := range []string{
		"mx.example.com; spf=fail smtp.mailfrom=example.org; dkim=none; dmarc=fail header.from=example.org",
		"mx.example.com; spf=pass smtp.mailfrom=example.org; dkim=fail header.d=example.org",
		// a pass added by the sender hides no fail
		"mx.example.com; spf=fail smtp.mailfrom=example.org",
	} {
		m := f.mail("forged: " + ar)
		m.AuthResults = []string{ar, "evil.example; spf=pass dkim=pass dmarc=pass"}
		f.deliver(t, m)
	}
	auto := f.mail("I am on vacation")
	auto.Headers = map[string]string{"Auto-Submitted": "auto-replied"}
	f.deliver(t, auto)
	own := f.mail("the bot's own")
	own.From = "hermes@example.com"
	f.deliver(t, own)
	good := f.mail("genuine")
	good.AuthResults = []string{"mx.example.com; spf=pass smtp.mailfrom=example.org; dkim=pass header.d=example.org; dmarc=pass"}
	f.deliver(t, good)
	ms := f.waitMessages(t, 1)
	if len(ms) != 1 || ms[0].Text != "genuine" {
		t.Fatalf("handed over: %+v", ms)
	}
	// The verdicts are logged with each mail.
	logs := f.logs.String()
	if !strings.Contains(logs, `msg="email received" message=`+good.MessageID+` auth="spf=pass dkim=pass dmarc=pass"`) ||
		!strings.Contains(logs, `msg="email: mail failing sender authentication dropped: its From may be forged" message=<m1@example.org> auth="spf=fail dkim=none dmarc=fail"`) {
		t.Fatalf("the log:\n%s", logs)
	}
}

func TestReadAuthResults(t *testing.T) {
	for in, want := range map[string]string{
		"mx; spf=pass smtp.mailfrom=a.org; dkim=pass header.d=a.org; dmarc=pass": "spf=pass dkim=pass dmarc=pass",
		"mx;\r\n\tspf=softfail smtp.mailfrom=a.org":                              "spf=softfail dkim=absent dmarc=absent",
		"": "spf=absent dkim=absent dmarc=absent",
	} {
		if got := readAuthResults([]string{in}).String(); got != want {
			t.Errorf("%q: %s, want %s", in, got, want)
		}
	}
}

// Only new mail is read on the first start; after a restart the mail
// that came meanwhile is read, and nothing handled before is handed
// over again.
func TestResumesFromTheCursor(t *testing.T) {
	f := newFixture(t, emailtest.Options{})
	f.deliver(t, f.mail("old mail, before the first start"))
	stop := f.run(t)
	f.deliver(t, f.mail("one"))
	f.waitMessages(t, 1)
	stop()
	f.deliver(t, f.mail("two"))
	f.deliver(t, f.mail("three"))
	f.a = f.adapter(t)
	f.run(t)
	ms := f.waitMessages(t, 2)
	f.deliver(t, f.mail("four"))
	ms = f.waitMessages(t, 3)
	var got []string
	for _, m := range ms {
		got = append(got, m.Text)
	}
	if strings.Join(got, ",") != "two,three,four" {
		t.Fatalf("after the restart: %q", got)
	}
}

// A cut connection is reported, made again with backoff, and the mail
// that came while it was down is read once.
func TestReconnects(t *testing.T) {
	f := newFixture(t, emailtest.Options{})
	f.run(t)
	f.deliver(t, f.mail("before"))
	f.waitMessages(t, 1)
	f.srv.SetDown(true)
	f.h.waitFor(t, "not connected", func() bool { return !f.h.lastState().Connected })
	f.deliver(t, f.mail("while away"))
	f.srv.SetDown(false)
	ms := f.waitMessages(t, 2)
	if !f.h.lastState().Connected || len(ms) != 2 || ms[1].Text != "while away" {
		t.Fatalf("after reconnecting: %+v, state %+v", ms, f.h.lastState())
	}
}

// A server without IDLE is polled.
func TestPollsWithoutIdle(t *testing.T) {
	f := newFixture(t, emailtest.Options{NoIdle: true})
	f.run(t)
	f.deliver(t, f.mail("polled"))
	if ms := f.waitMessages(t, 1); ms[0].Text != "polled" {
		t.Fatalf("got %+v", ms)
	}
}

// A refused login ends Run with an error saying so.
func TestARefusedLoginEndsRun(t *testing.T) {
	srv := emailtest.NewServer(t, emailtest.Options{})
	a, err := New(Options{IMAPURL: srv.IMAPURL(), SMTPURL: srv.SMTPURL(), User: srv.User(), Password: "wrong"})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	h := newRecorder()
	if err := a.Run(ctx, h); err == nil || !strings.Contains(err.Error(), "refused the login") {
		t.Fatalf("Run: %v", err)
	}
	if s := h.lastState(); s.Connected || !strings.Contains(s.Detail, "refused the login") {
		t.Fatalf("state %+v", s)
	}
}

// refusing is a handler whose first n Messages fail, as a gateway whose
// store failed.
type refusing struct {
	*recorder
	mu    sync.Mutex
	n     int
	tries int
}

func (r *refusing) Message(ctx context.Context, m gateway.Inbound) error {
	r.mu.Lock()
	r.tries++
	fail := r.tries <= r.n
	r.mu.Unlock()
	if fail {
		return errors.New("the store is locked")
	}
	return r.recorder.Message(ctx, m)
}

// A mail the handler refused is read again, and the cursor does not
// move past it meanwhile.
func TestARefusedMailIsReadAgain(t *testing.T) {
	f := newFixture(t, emailtest.Options{})
	h := &refusing{recorder: newRecorder(), n: 2}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go f.a.Run(ctx, h)
	f.h = h.recorder
	f.h.waitFor(t, "connected", func() bool { return f.h.lastState().Connected })
	f.deliver(t, f.mail("first"))
	f.deliver(t, f.mail("second"))
	ms := f.waitMessages(t, 2)
	h.mu.Lock()
	tries := h.tries
	h.mu.Unlock()
	if ms[0].Text != "first" || ms[1].Text != "second" || tries != 4 {
		t.Fatalf("handed over %+v after %d tries", ms, tries)
	}
}

// A folder whose UIDVALIDITY changed is read from its end: the old UIDs
// say nothing about the new folder.
func TestANewUIDValidityStartsAtTheEnd(t *testing.T) {
	f := newFixture(t, emailtest.Options{})
	f.kv.Set(context.Background(), f.a.cursorKey(), "4242:0")
	f.deliver(t, f.mail("in the rebuilt folder already"))
	f.run(t)
	f.deliver(t, f.mail("new"))
	if ms := f.waitMessages(t, 1); len(ms) != 1 || ms[0].Text != "new" {
		t.Fatalf("handed over %+v", ms)
	}
	v, _, _ := f.kv.Get(context.Background(), f.a.cursorKey())
	if strings.HasPrefix(v, "4242:") {
		t.Fatalf("the cursor kept the old UIDVALIDITY: %s", v)
	}
}

// IDLE is ended and started again every IdleRestart, and mail still
// arrives after.
func TestIdleIsRenewed(t *testing.T) {
	f := newFixture(t, emailtest.Options{})
	f.a.o.IdleRestart = 10 * time.Millisecond
	f.run(t)
	if !f.srv.WaitFor(wait, func() bool { return strings.Count(f.srv.IMAPWire(), "DONE\r\n") >= 3 }) {
		t.Fatal("IDLE was not renewed")
	}
	f.deliver(t, f.mail("after renewals"))
	if ms := f.waitMessages(t, 1); ms[0].Text != "after renewals" || !f.h.lastState().Connected {
		t.Fatalf("got %+v, state %+v", ms, f.h.lastState())
	}
}

// In a group thread a mail speaks to the bot when the bot is on its To
// line or it answers one of the bot's mails; a bot only on Cc of a
// discussion is not addressed. A direct thread always is.
func TestAddressedInGroupThreads(t *testing.T) {
	f := newFixture(t, emailtest.Options{})
	f.run(t)
	cc := f.mail("bob, what do you think?")
	cc.To, cc.Cc = []string{"bob@example.org"}, []string{f.srv.Address()}
	f.deliver(t, cc)
	in := f.waitMessages(t, 1)[0]
	if in.ChatType != gateway.Group || in.Addressed {
		t.Fatalf("a mail to bob with the bot on Cc: %+v", in)
	}
	sent, err := f.a.Send(context.Background(), gateway.Outbound{Chat: in.Chat, Text: "my view"})
	if err != nil {
		t.Fatal(err)
	}
	reply := f.mail("thanks, bot")
	reply.To, reply.Cc = []string{"bob@example.org"}, []string{f.srv.Address()}
	reply.InReplyTo, reply.References = sent.MessageID, []string{cc.MessageID, sent.MessageID}
	f.deliver(t, reply)
	direct := f.mail("just you")
	f.deliver(t, direct)
	ms := f.waitMessages(t, 3)
	if !ms[1].Addressed || ms[1].ChatType != gateway.Group || !ms[2].Addressed || ms[2].ChatType != gateway.DM {
		t.Fatalf("a reply to the bot: %+v; a direct mail: %+v", ms[1], ms[2])
	}
}
