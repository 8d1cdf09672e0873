package signal

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/hermes-go/hermes/gateway"
	"github.com/hermes-go/hermes/gateway/signal/signaltest"
)

func newAdapter(t *testing.T, srv *signaltest.Server) *Adapter {
	t.Helper()
	a, err := New(Options{HTTPURL: srv.URL(), Account: srv.Account()})
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// A reply quotes the message it answers: a person's (sender:timestamp)
// or the bot's own (timestamp).
func TestSendQuotes(t *testing.T) {
	srv := signaltest.NewServer(t, signaltest.Options{})
	a := newAdapter(t, srv)
	ctx := context.Background()
	chat := gateway.ChatRef{ChatID: alice.Number}
	first, err := a.Send(ctx, gateway.Outbound{Chat: chat, Text: "one", ReplyTo: alice.Number + ":1700000000123"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.Send(ctx, gateway.Outbound{Chat: chat, Text: "two", ReplyTo: first.MessageID}); err != nil {
		t.Fatal(err)
	}
	ms := srv.BotMessages(alice.Number)
	if len(ms) != 2 || ms[0].Quote != 1700000000123 || ms[0].QuoteAuthor != alice.Number ||
		strconv.FormatInt(ms[1].Quote, 10) != first.MessageID || ms[1].QuoteAuthor != srv.Account() {
		t.Fatalf("the bot's messages: %+v", ms)
	}
	if err := a.Edit(ctx, chat, alice.Number+":1700000000123", gateway.Outbound{Chat: chat, Text: "x"}); !permanent(err) {
		t.Fatalf("editing a person's message: %v, want a permanent refusal", err)
	}
}

// Refusals are classified: a rate limit waits its retryAfterSeconds, a
// number not on Signal or a group the bot is not in is refused for good,
// an I/O failure is retried.
func TestSendErrors(t *testing.T) {
	srv := signaltest.NewServer(t, signaltest.Options{})
	a := newAdapter(t, srv)
	ctx := context.Background()
	chat := gateway.ChatRef{ChatID: alice.Number}

	srv.FailNextSend(signaltest.RateLimit(7))
	_, err := a.Send(ctx, gateway.Outbound{Chat: chat, Text: "hi"})
	if se, ok := gateway.AsSendError(err); !ok || se.RetryAfter != 7*time.Second || se.Permanent {
		t.Fatalf("a rate limit: %v", err)
	}
	srv.FailNextSend(signaltest.Fault{Code: signaltest.CodeRateLimit, Message: "Rate limited"})
	_, err = a.Send(ctx, gateway.Outbound{Chat: chat, Text: "hi"})
	if se, ok := gateway.AsSendError(err); !ok || se.RetryAfter != defaultRetryAfter {
		t.Fatalf("a rate limit without a wait: %v", err)
	}
	srv.FailNextSend(signaltest.Unregistered())
	if _, err := a.Send(ctx, gateway.Outbound{Chat: chat, Text: "hi"}); !permanent(err) {
		t.Fatalf("an unregistered number: %v", err)
	}
	srv.FailNextSend(signaltest.Fault{Code: signaltest.CodeUntrustedKey, Message: "Untrusted Identity"})
	if _, err := a.Send(ctx, gateway.Outbound{Chat: chat, Text: "hi"}); !permanent(err) {
		t.Fatalf("a changed safety number: %v", err)
	}
	srv.FailNextSend(signaltest.Fault{Code: signaltest.CodeIOError, Message: "Failed to send message: network"})
	if _, err := a.Send(ctx, gateway.Outbound{Chat: chat, Text: "hi"}); err == nil {
		t.Fatal("an I/O error passed")
	} else if _, ok := gateway.AsSendError(err); ok {
		t.Fatalf("an I/O error is a refusal, not retried: %v", err)
	}
	if _, err := a.Send(ctx, gateway.Outbound{Chat: gateway.ChatRef{}, Text: "hi"}); !permanent(err) {
		t.Fatalf("no chat: %v", err)
	}
	// Every refused send reached the fake and left no message.
	if ms := srv.BotMessages(alice.Number); len(ms) != 0 {
		t.Fatalf("refused sends left messages: %+v", ms)
	}
	// A daemon that is gone is a transport failure, retried.
	dead := newAdapter(t, srv)
	dead.base = "http://127.0.0.1:1"
	if _, err := dead.Send(ctx, gateway.Outbound{Chat: chat, Text: "hi"}); err == nil {
		t.Fatal("a send to nowhere passed")
	} else if _, ok := gateway.AsSendError(err); ok {
		t.Fatalf("a transport failure is a refusal: %v", err)
	}
}

func permanent(err error) bool {
	se, ok := gateway.AsSendError(err)
	return ok && se.Permanent
}

// Upload sends the file inline, with its name and the caption; a file
// that is not there is refused before any request.
func TestUpload(t *testing.T) {
	srv := signaltest.NewServer(t, signaltest.Options{})
	a := newAdapter(t, srv)
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "report.pdf")
	os.WriteFile(path, []byte("%PDF-1.4 report"), 0o600)
	team := signaltest.Group("team")
	if _, err := a.Upload(ctx, gateway.ChatRef{ChatID: team.GroupID}, gateway.File{Path: path, Caption: "the report"}); err != nil {
		t.Fatal(err)
	}
	ms := srv.BotMessages(team.GroupID)
	if len(ms) != 1 || ms[0].Text != "the report" || len(ms[0].Attachments) != 1 {
		t.Fatalf("the group holds %+v", ms)
	}
	name, data, err := signaltest.DataOf(ms[0].Attachments[0])
	if err != nil || name != "report.pdf" || string(data) != "%PDF-1.4 report" {
		t.Fatalf("the attachment is %q %q %v (%.40s)", name, data, err, ms[0].Attachments[0])
	}
	calls := len(srv.Calls())
	if _, err := a.Upload(ctx, gateway.ChatRef{ChatID: team.GroupID}, gateway.File{Path: path + ".gone"}); !permanent(err) {
		t.Fatalf("a missing file: %v", err)
	}
	if len(srv.Calls()) != calls {
		t.Fatal("a missing file was sent")
	}
	if err := a.Typing(ctx, gateway.ChatRef{ChatID: alice.Number}); err != nil {
		t.Fatal(err)
	}
	if c := srv.Calls("sendTyping"); len(c) != 1 || c[0].Chat != alice.Number {
		t.Fatalf("typing: %+v", c)
	}
}
