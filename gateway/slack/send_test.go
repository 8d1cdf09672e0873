package slack_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hermes-go/hermes/gateway"
	"github.com/hermes-go/hermes/gateway/slack"
	"github.com/hermes-go/hermes/gateway/slack/slacktest"
)

// sender is an adapter that is not running: Send, Edit and Upload need
// no connection.
func sender(t *testing.T, srv *slacktest.Server) *slack.Adapter {
	t.Helper()
	a, err := slack.New(slack.Options{BotToken: slacktest.BotToken, AppToken: slacktest.AppToken, APIURL: srv.APIURL()})
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func TestLimits(t *testing.T) {
	a := sender(t, slacktest.NewServer(t))
	want := gateway.Limits{MaxText: 39000, Format: "mrkdwn", MaxButtonData: 2000, Edits: true}
	if got := a.Limits(); got != want {
		t.Fatalf("Limits() = %+v, want %+v", got, want)
	}
}

func TestSendEditAndUpload(t *testing.T) {
	srv := slacktest.NewServer(t)
	a := sender(t, srv)
	ctx := context.Background()

	sent, err := a.Send(ctx, gateway.Outbound{Chat: gateway.ChatRef{ChatID: "C1"}, Text: "*bold* draft"})
	if err != nil {
		t.Fatal(err)
	}
	inThread, err := a.Send(ctx, gateway.Outbound{Chat: gateway.ChatRef{ChatID: "C1", ThreadID: sent.MessageID}, Text: "a <plain> & reply", Plain: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Edit(ctx, gateway.ChatRef{ChatID: "C1"}, sent.MessageID, gateway.Outbound{Text: "*bold* final"}); err != nil {
		t.Fatal(err)
	}

	msgs := srv.BotMessages("C1")
	if len(msgs) != 2 {
		t.Fatalf("channel holds %+v, want two messages", msgs)
	}
	if m := msgs[0]; m.TS != sent.MessageID || m.Text != "*bold* final" || !m.Mrkdwn || m.Edits != 1 || m.ThreadTS != "" {
		t.Errorf("edited message = %+v", m)
	}
	if m := msgs[1]; m.TS != inThread.MessageID || m.ThreadTS != sent.MessageID || m.Mrkdwn || m.Text != "a &lt;plain&gt; &amp; reply" {
		t.Errorf("plain reply in the thread = %+v, want escaped text with mrkdwn off", m)
	}

	path := filepath.Join(t.TempDir(), "report.csv")
	if err := os.WriteFile(path, []byte("a,b\n1,2\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	up, err := a.Upload(ctx, gateway.ChatRef{ChatID: "C1", ThreadID: sent.MessageID}, gateway.File{Path: path, Caption: "the report"})
	if err != nil {
		t.Fatal(err)
	}
	files := srv.Uploads("C1")
	if len(files) != 1 {
		t.Fatalf("uploads = %+v", files)
	}
	if f := files[0]; f.ID != up.MessageID || f.Name != "report.csv" || string(f.Content) != "a,b\n1,2\n" ||
		f.Comment != "the report" || f.ThreadTS != sent.MessageID {
		t.Errorf("upload = %+v (id %q)", f, up.MessageID)
	}
	for _, m := range []string{"files.getUploadURLExternal", "upload", "files.completeUploadExternal"} {
		if n := len(srv.Calls(m)); n != 1 {
			t.Errorf("%s called %d times, want once", m, n)
		}
	}
}

func TestTypingIsANoOp(t *testing.T) {
	srv := slacktest.NewServer(t)
	if err := sender(t, srv).Typing(context.Background(), gateway.ChatRef{ChatID: "C1"}); err != nil {
		t.Fatal(err)
	}
	if calls := srv.Calls(""); len(calls) != 0 {
		t.Fatalf("Typing called %+v", calls)
	}
}

func TestButtonsAndAClickAnsweredToTheClickerOnly(t *testing.T) {
	srv := slacktest.NewServer(t)
	f := start(t, srv, nil)
	f.connected(t)
	ctx := context.Background()

	q := srv.Mention("C1", "U1", "rm -rf build")
	f.handled(t, 1)
	chat := gateway.ChatRef{ChatID: "C1", ThreadID: q.TS}
	card, err := f.a.Send(ctx, gateway.Outbound{
		Chat: chat, Text: "*Approve* `rm -rf build`?",
		Buttons: [][]gateway.Button{
			{{Label: "Once", Data: "appr:1:once"}, {Label: "Session", Data: "appr:1:session"}},
			{{Label: "Deny", Data: "appr:1:deny"}},
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	m, _ := srv.Message("C1", card.MessageID)
	if m.Shown() != "*Approve* `rm -rf build`?" || m.Text != "*Approve* `rm -rf build`?" {
		t.Fatalf("card shows %q (text %q)", m.Shown(), m.Text)
	}
	if len(m.Buttons) != 2 || len(m.Buttons[0]) != 2 || len(m.Buttons[1]) != 1 ||
		m.Buttons[0][0].Label != "Once" || m.Buttons[0][1].Value != "appr:1:session" || m.Buttons[1][0].Value != "appr:1:deny" {
		t.Fatalf("buttons = %+v", m.Buttons)
	}

	click, err := srv.Click("C1", card.MessageID, "U2", "appr:1:deny")
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, srv, f.rec, "the click", func() bool { return len(f.rec.clicked()) == 1 })
	f.acked(t, click)
	c := f.rec.clicked()[0]
	if c.Platform != "slack" || c.Data != "appr:1:deny" || c.UserID != "U2" || c.MessageID != card.MessageID || c.Chat != chat {
		t.Fatalf("click = %+v", c)
	}
	if err := c.Answer(ctx, "Only <@U1> can answer this."); err != nil {
		t.Fatal(err)
	}
	if err := c.Answer(ctx, "again"); err == nil {
		t.Fatal("a click was answered twice")
	}
	eph := srv.Ephemerals("C1", "U2")
	if len(eph) != 1 || eph[0].Text != "Only &lt;@U1&gt; can answer this." || eph[0].ThreadTS != q.TS {
		t.Fatalf("ephemerals for the clicker = %+v", eph)
	}
	if other := srv.Ephemerals("C1", "U1"); len(other) != 0 {
		t.Fatalf("someone else saw the answer: %+v", other)
	}

	// The decision replaces the card's text and removes its buttons.
	if err := f.a.Edit(ctx, chat, card.MessageID, gateway.Outbound{Text: "Denied."}); err != nil {
		t.Fatal(err)
	}
	m, _ = srv.Message("C1", card.MessageID)
	if m.Shown() != "Denied." || len(m.Buttons) != 0 {
		t.Fatalf("after the edit the card shows %q with buttons %+v", m.Shown(), m.Buttons)
	}
}

func TestLongTextWithButtonsIsCutIntoSections(t *testing.T) {
	srv := slacktest.NewServer(t)
	a := sender(t, srv)
	para := strings.Repeat("word ", 399) + "end.\n" // 2,000 characters a line
	text := strings.Repeat(para, 5)
	sent, err := a.Send(context.Background(), gateway.Outbound{
		Chat: gateway.ChatRef{ChatID: "C1"}, Text: text,
		Buttons: [][]gateway.Button{{{Label: strings.Repeat("L", 100), Data: "x"}}},
	})
	if err != nil {
		t.Fatalf("Send: %v (Slack refuses sections over 3,000 characters and labels over 75)", err)
	}
	m, _ := srv.Message("C1", sent.MessageID)
	if len(m.Sections) != 5 || strings.Join(m.Sections, "") != text {
		t.Fatalf("%d sections that rejoin to the text: %v", len(m.Sections), strings.Join(m.Sections, "") == text)
	}
	if l := []rune(m.Buttons[0][0].Label); len(l) != 75 || l[74] != '…' {
		t.Fatalf("label %q, want 75 characters ending in an ellipsis", string(l))
	}
}

func TestSendErrorsAreClassified(t *testing.T) {
	cases := []struct {
		failure   slacktest.Failure
		retry     time.Duration
		permanent bool
		format    bool
		status    int
	}{
		{slacktest.Failure{RetryAfter: 7 * time.Second}, 7 * time.Second, false, false, 429},
		{slacktest.Failure{Error: "channel_not_found"}, 0, true, false, 200},
		{slacktest.Failure{Error: "not_in_channel"}, 0, true, false, 200},
		{slacktest.Failure{Error: "is_archived"}, 0, true, false, 200},
		{slacktest.Failure{Error: "account_inactive"}, 0, true, false, 200},
		{slacktest.Failure{Error: "invalid_auth"}, 0, true, false, 200},
		{slacktest.Failure{Error: "invalid_blocks"}, 0, false, true, 200},
	}
	srv := slacktest.NewServer(t)
	a := sender(t, srv)
	ctx := context.Background()
	chat := gateway.ChatRef{ChatID: "C1"}
	sent, err := a.Send(ctx, gateway.Outbound{Chat: chat, Text: "to edit"})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "f.txt")
	if err := os.WriteFile(path, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	calls := []struct {
		method string
		call   func() error
	}{
		{"chat.postMessage", func() error { _, err := a.Send(ctx, gateway.Outbound{Chat: chat, Text: "hi"}); return err }},
		{"chat.update", func() error { return a.Edit(ctx, chat, sent.MessageID, gateway.Outbound{Text: "hi"}) }},
		{"files.getUploadURLExternal", func() error { _, err := a.Upload(ctx, chat, gateway.File{Path: path}); return err }},
	}
	for _, call := range calls {
		for _, c := range cases {
			name := call.method + " " + c.failure.Error
			if c.failure.RetryAfter > 0 {
				name = call.method + " 429"
			}
			t.Run(name, func(t *testing.T) {
				srv.Fail(call.method, c.failure)
				err := call.call()
				se, ok := gateway.AsSendError(err)
				if !ok {
					t.Fatalf("error %v is not a *gateway.SendError", err)
				}
				if se.RetryAfter != c.retry || se.Permanent != c.permanent || se.Format != c.format || se.Status != c.status {
					t.Fatalf("SendError = %+v", se)
				}
				if !strings.Contains(se.Error(), call.method) && !strings.Contains(se.Error(), "upload") {
					t.Fatalf("error %q does not name the call", se.Error())
				}
			})
		}
	}

	// Other refusals and transport failures stay plain errors, for the
	// gateway to retry.
	srv.Fail("chat.postMessage", slacktest.Failure{Error: "internal_error"})
	_, err = a.Send(ctx, gateway.Outbound{Chat: chat, Text: "hi"})
	if _, isSend := gateway.AsSendError(err); err == nil || isSend || !strings.Contains(err.Error(), "chat.postMessage: internal_error") {
		t.Fatalf("internal_error = %v, want a plain error naming the method", err)
	}
	srv.Fail("chat.postMessage", slacktest.Failure{Status: 503})
	_, err = a.Send(ctx, gateway.Outbound{Chat: chat, Text: "hi"})
	if _, isSend := gateway.AsSendError(err); err == nil || isSend || !strings.Contains(err.Error(), "503") {
		t.Fatalf("a 503 = %v, want a plain error", err)
	}
	down := srv.URL()
	srv.Close()
	_, err = a.Send(ctx, gateway.Outbound{Chat: chat, Text: "hi"})
	if _, isSend := gateway.AsSendError(err); err == nil || isSend {
		t.Fatalf("Send to a closed server (%s) = %v, want a plain error", down, err)
	}
}

func TestAnswerErrorsAreClassified(t *testing.T) {
	srv := slacktest.NewServer(t)
	f := start(t, srv, nil)
	f.connected(t)
	card, err := f.a.Send(context.Background(), gateway.Outbound{Chat: gateway.ChatRef{ChatID: "C1"}, Text: "pick",
		Buttons: [][]gateway.Button{{{Label: "A", Data: "a"}}}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := srv.Click("C1", card.MessageID, "U1", "a"); err != nil {
		t.Fatal(err)
	}
	waitFor(t, srv, f.rec, "the click", func() bool { return len(f.rec.clicked()) == 1 })
	c := f.rec.clicked()[0]
	srv.Fail("chat.postEphemeral", slacktest.Failure{RetryAfter: 2 * time.Second})
	err = c.Answer(context.Background(), "hello")
	if se, ok := gateway.AsSendError(err); !ok || se.RetryAfter != 2*time.Second {
		t.Fatalf("Answer under a rate limit = %v", err)
	}
	// A failed answer can be tried again.
	if err := c.Answer(context.Background(), "hello"); err != nil {
		t.Fatal(err)
	}
	if e := srv.Ephemerals("C1", "U1"); len(e) != 1 {
		t.Fatalf("ephemerals = %+v", e)
	}
}

func TestEmptyFileIsRefusedBeforeAnyCall(t *testing.T) {
	srv := slacktest.NewServer(t)
	path := filepath.Join(t.TempDir(), "empty")
	if err := os.WriteFile(path, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := sender(t, srv).Upload(context.Background(), gateway.ChatRef{ChatID: "C1"}, gateway.File{Path: path})
	if se, ok := gateway.AsSendError(err); !ok || !se.Permanent {
		t.Fatalf("Upload of an empty file = %v, want a permanent refusal", err)
	}
	_, err = sender(t, srv).Upload(context.Background(), gateway.ChatRef{ChatID: "C1"}, gateway.File{Path: filepath.Join(t.TempDir(), "missing")})
	if !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("Upload of a missing file = %v", err)
	}
	if calls := srv.Calls(""); len(calls) != 0 {
		t.Fatalf("calls = %+v", calls)
	}
}
