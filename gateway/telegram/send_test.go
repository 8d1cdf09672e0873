package telegram_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/hermes-go/hermes/gateway"
	"github.com/hermes-go/hermes/gateway/telegram"
	"github.com/hermes-go/hermes/gateway/telegram/telegramtest"
)

// idle is an adapter that is not running: sending needs no Run.
func idle(t *testing.T, srv *telegramtest.Server) *telegram.Adapter {
	t.Helper()
	a, err := telegram.New(options(srv))
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func ref(c telegramtest.Chat) gateway.ChatRef { return gateway.ChatRef{ChatID: fmt.Sprint(c.ID)} }

func TestSendFormatsRepliesAndAttachesButtons(t *testing.T) {
	srv := telegramtest.NewServer(t, telegramtest.Options{})
	a := idle(t, srv)
	ctx := context.Background()
	dm := srv.DM(alice)
	question := srv.SendText(alice, dm, "run ls?")

	sent, err := a.Send(ctx, gateway.Outbound{
		Chat:    ref(dm),
		Text:    "<b>Approve</b> <code>ls -la</code>?",
		ReplyTo: fmt.Sprintf("%d:%d", dm.ID, question.ID),
		Buttons: [][]gateway.Button{{{Label: "Once", Data: "appr:1:once"}, {Label: "Deny", Data: "appr:1:deny"}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	plain, err := a.Send(ctx, gateway.Outbound{Chat: ref(dm), Text: "a <b> stays as typed", Plain: true})
	if err != nil {
		t.Fatal(err)
	}

	msgs := srv.BotMessages(dm)
	if len(msgs) != 2 {
		t.Fatalf("chat shows %d bot messages, want 2", len(msgs))
	}
	m := msgs[0]
	if sent.MessageID != fmt.Sprint(m.ID) || plain.MessageID != fmt.Sprint(msgs[1].ID) {
		t.Errorf("Send returned %q and %q, want the message ids %d and %d", sent.MessageID, plain.MessageID, m.ID, msgs[1].ID)
	}
	if m.Text != "Approve ls -la?" || m.ParseMode != "HTML" || m.ReplyTo != question.ID {
		t.Errorf("message reads %q (%s), replying to %d; want formatted text replying to %d", m.Text, m.ParseMode, m.ReplyTo, question.ID)
	}
	wantButtons := [][]telegramtest.Button{{{Text: "Once", Data: "appr:1:once"}, {Text: "Deny", Data: "appr:1:deny"}}}
	if !reflect.DeepEqual(m.Buttons, wantButtons) {
		t.Errorf("buttons %+v, want %+v", m.Buttons, wantButtons)
	}
	if got := msgs[1]; got.Text != "a <b> stays as typed" || got.ParseMode != "" {
		t.Errorf("plain message reads %q with parse mode %q", got.Text, got.ParseMode)
	}
}

func TestSendToAForumTopicAndShowTyping(t *testing.T) {
	srv := telegramtest.NewServer(t, telegramtest.Options{})
	a := idle(t, srv)
	ctx := context.Background()
	forum := srv.Forum("support")
	topic := gateway.ChatRef{ChatID: fmt.Sprint(forum.ID), ThreadID: "77"}
	if err := a.Typing(ctx, topic); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Send(ctx, gateway.Outbound{Chat: topic, Text: "in the topic"}); err != nil {
		t.Fatal(err)
	}
	if m := srv.BotMessages(forum); len(m) != 1 || m[0].ThreadID != 77 {
		t.Errorf("bot messages %+v, want one in topic 77", m)
	}
	typing := srv.Calls("sendChatAction")
	if len(typing) != 1 || typing[0].Params["action"] != "typing" || typing[0].Params["message_thread_id"] != "77" {
		t.Errorf("sendChatAction calls %+v, want typing in topic 77", typing)
	}
}

func TestEditReplacesTextAndButtons(t *testing.T) {
	srv := telegramtest.NewServer(t, telegramtest.Options{})
	a := idle(t, srv)
	ctx := context.Background()
	dm := srv.DM(alice)
	sent, err := a.Send(ctx, gateway.Outbound{Chat: ref(dm), Text: "Thinking", Buttons: [][]gateway.Button{{{Label: "Stop", Data: "stop"}}}})
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Edit(ctx, ref(dm), sent.MessageID, gateway.Outbound{Text: "Thinking<i>…</i> done"}); err != nil {
		t.Fatal(err)
	}
	m := srv.BotMessages(dm)
	if len(m) != 1 || m[0].Text != "Thinking… done" || m[0].Edits != 1 || m[0].Buttons != nil {
		t.Errorf("chat shows %+v, want one message edited once to the new text, without buttons", m)
	}
}

func TestUploadSendsImagesAsPhotosAndOtherFilesAsDocuments(t *testing.T) {
	srv := telegramtest.NewServer(t, telegramtest.Options{})
	a := idle(t, srv)
	ctx := context.Background()
	dm := srv.DM(alice)
	dir := t.TempDir()
	chart := filepath.Join(dir, "chart.png")
	report := filepath.Join(dir, "report.csv")
	os.WriteFile(chart, []byte("\x89PNG chart"), 0o600)
	os.WriteFile(report, []byte("a,b\n1,2\n"), 0o600)

	if _, err := a.Upload(ctx, ref(dm), gateway.File{Path: chart, Caption: "the <chart>"}); err != nil {
		t.Fatal(err)
	}
	sent, err := a.Upload(ctx, ref(dm), gateway.File{Path: report, Name: "q3.csv"})
	if err != nil {
		t.Fatal(err)
	}
	m := srv.BotMessages(dm)
	if len(m) != 2 {
		t.Fatalf("chat shows %d bot messages, want 2", len(m))
	}
	if f := m[0].File; f == nil || f.Kind != "photo" || string(f.Data) != "\x89PNG chart" || m[0].Text != "the <chart>" {
		t.Errorf("first upload shows %+v with caption %q, want the photo with its caption as typed", f, m[0].Text)
	}
	if f := m[1].File; f == nil || f.Kind != "document" || f.Name != "q3.csv" || string(f.Data) != "a,b\n1,2\n" || sent.MessageID != fmt.Sprint(m[1].ID) {
		t.Errorf("second upload shows %+v (sent %q), want the document q3.csv", f, sent.MessageID)
	}
	if calls := srv.Calls("sendPhoto", "sendDocument"); len(calls) != 2 || calls[0].Method != "sendPhoto" || calls[1].Method != "sendDocument" {
		t.Errorf("calls %+v, want sendPhoto then sendDocument", calls)
	}
}

func TestSetCommandsFillsTheMenuWithTheNamesTelegramTakes(t *testing.T) {
	srv := telegramtest.NewServer(t, telegramtest.Options{})
	a := idle(t, srv)
	err := a.SetCommands(context.Background(), []gateway.Command{
		{Name: "new", Description: "Start a new conversation"},
		{Name: "web-search", Description: "a skill Telegram cannot list"},
		{Name: "usage", Description: strings.Repeat("x", 300)},
	})
	if err != nil {
		t.Fatal(err)
	}
	got := srv.Commands()
	if len(got) != 2 || got[0] != (telegramtest.Command{Command: "new", Description: "Start a new conversation"}) ||
		got[1].Command != "usage" || len([]rune(got[1].Description)) != 256 {
		t.Errorf("menu %+v, want new and usage (description cut to 256)", got)
	}
}

func TestRefusalsBecomeSendErrors(t *testing.T) {
	ctx := context.Background()
	cases := []struct {
		name   string
		script func(*telegramtest.Server, telegramtest.Chat)
		send   func(*telegram.Adapter, telegramtest.Chat) error
		check  func(*gateway.SendError) bool
		status int
		calls  int // requests expected
	}{
		{
			name:   "rate limited",
			script: func(s *telegramtest.Server, _ telegramtest.Chat) { s.Fail("sendMessage", telegramtest.RetryAfter(7)) },
			check:  func(e *gateway.SendError) bool { return e.RetryAfter == 7*time.Second && !e.Permanent },
			status: 429, calls: 1,
		},
		{
			name:   "blocked by the user",
			script: func(s *telegramtest.Server, _ telegramtest.Chat) { s.Block(alice) },
			check:  func(e *gateway.SendError) bool { return e.Permanent },
			status: 403, calls: 1,
		},
		{
			name:   "removed from the group",
			script: func(s *telegramtest.Server, _ telegramtest.Chat) { s.Kick(s.Group("gone")) },
			send: func(a *telegram.Adapter, _ telegramtest.Chat) error {
				_, err := a.Send(ctx, gateway.Outbound{Chat: gateway.ChatRef{ChatID: "-1001000000001"}, Text: "hi"})
				return err
			},
			check:  func(e *gateway.SendError) bool { return e.Permanent },
			status: 403, calls: 1,
		},
		{
			name: "chat not found",
			send: func(a *telegram.Adapter, _ telegramtest.Chat) error {
				_, err := a.Send(ctx, gateway.Outbound{Chat: gateway.ChatRef{ChatID: "424242"}, Text: "hi"})
				return err
			},
			check:  func(e *gateway.SendError) bool { return e.Permanent },
			status: 400, calls: 1,
		},
		{
			name: "unbalanced HTML",
			send: func(a *telegram.Adapter, c telegramtest.Chat) error {
				_, err := a.Send(ctx, gateway.Outbound{Chat: ref(c), Text: "<b>bold, never closed"})
				return err
			},
			check:  func(e *gateway.SendError) bool { return e.Format && !e.Permanent },
			status: 400, calls: 1,
		},
		{
			name: "edit that changes nothing",
			send: func(a *telegram.Adapter, c telegramtest.Chat) error {
				sent, err := a.Send(ctx, gateway.Outbound{Chat: ref(c), Text: "<b>same</b>"})
				if err != nil {
					return err
				}
				return a.Edit(ctx, ref(c), sent.MessageID, gateway.Outbound{Text: "<b>same</b>"})
			},
			check:  func(e *gateway.SendError) bool { return e.NotModified && !e.Permanent },
			status: 400, calls: 2,
		},
		{
			name: "callback data over 64 bytes",
			send: func(a *telegram.Adapter, c telegramtest.Chat) error {
				_, err := a.Send(ctx, gateway.Outbound{Chat: ref(c), Text: "pick", Buttons: [][]gateway.Button{{{Label: "Long", Data: strings.Repeat("d", 65)}}}})
				return err
			},
			check:  func(e *gateway.SendError) bool { return e.Permanent },
			status: 0, calls: 0,
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			srv := telegramtest.NewServer(t, telegramtest.Options{})
			a := idle(t, srv)
			dm := srv.DM(alice)
			if c.script != nil {
				c.script(srv, dm)
			}
			send := c.send
			if send == nil {
				send = func(a *telegram.Adapter, c telegramtest.Chat) error {
					_, err := a.Send(ctx, gateway.Outbound{Chat: ref(c), Text: "hello"})
					return err
				}
			}
			err := send(a, dm)
			se, ok := gateway.AsSendError(err)
			if !ok {
				t.Fatalf("error %v is not a SendError", err)
			}
			if !c.check(se) || se.Status != c.status {
				t.Errorf("SendError %+v (status %d), want status %d and the right class", se, se.Status, c.status)
			}
			if n := len(srv.Calls("sendMessage", "editMessageText")); n != c.calls {
				t.Errorf("%d requests made, want %d", n, c.calls)
			}
		})
	}
}

func TestServerErrorsAndDropsStayPlainErrors(t *testing.T) {
	srv := telegramtest.NewServer(t, telegramtest.Options{})
	a := idle(t, srv)
	dm := srv.DM(alice)
	srv.Fail("sendMessage", telegramtest.BadGateway)
	_, err := a.Send(context.Background(), gateway.Outbound{Chat: ref(dm), Text: "hello"})
	if _, ok := gateway.AsSendError(err); err == nil || ok {
		t.Errorf("502 gave %v, want a plain error the gateway retries", err)
	}
	srv.SetDown(true)
	_, err = a.Send(context.Background(), gateway.Outbound{Chat: ref(dm), Text: "hello"})
	if _, ok := gateway.AsSendError(err); err == nil || ok {
		t.Errorf("a dropped connection gave %v, want a plain error", err)
	}
	if strings.Contains(fmt.Sprint(err), srv.Token()) {
		t.Errorf("the error shows the token: %v", err)
	}
}

func TestLimitsAreTelegrams(t *testing.T) {
	a := idle(t, telegramtest.NewServer(t, telegramtest.Options{}))
	want := gateway.Limits{MaxText: 4096, Format: "html", MaxButtonData: 64, Edits: true}
	if a.Platform() != "telegram" || a.Limits() != want {
		t.Errorf("%s limits %+v, want telegram %+v", a.Platform(), a.Limits(), want)
	}
}
