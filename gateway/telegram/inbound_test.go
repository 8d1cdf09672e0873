package telegram_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"testing"
	"time"

	"github.com/hermes-go/hermes/gateway"
	"github.com/hermes-go/hermes/gateway/telegram/telegramtest"
)

func TestDirectMessageArrivesAddressedWithItsChatAndSender(t *testing.T) {
	srv := telegramtest.NewServer(t, telegramtest.Options{})
	since := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	h := newHandler()
	o := options(srv)
	o.Now = func() time.Time { return since }
	start(t, o, h)

	dm := srv.DM(alice)
	sent := srv.SendText(alice, dm, "hello there")
	got := h.waitMessages(t, 1)[0]

	want := gateway.Inbound{
		Platform:  "telegram",
		Chat:      gateway.ChatRef{ChatID: "1001"},
		ChatType:  gateway.DM,
		MessageID: fmt.Sprintf("1001:%d", sent.ID),
		UserID:    "1001",
		UserName:  "Alice Liddell",
		Text:      "hello there",
		Addressed: true,
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("inbound\n got %+v\nwant %+v", got, want)
	}
	state := h.lastState()
	if !state.Connected || state.Detail != "@hermes_test_bot" || state.Platform != "telegram" || !state.Since.Equal(since) {
		t.Errorf("state = %+v, want connected as @hermes_test_bot since %v", state, since)
	}
}

func TestGroupMessagesAreAddressedByMentionReplyOrCommand(t *testing.T) {
	srv := telegramtest.NewServer(t, telegramtest.Options{})
	h := newHandler()
	a := start(t, options(srv), h)
	group := srv.Group("team")
	forum := srv.Forum("support")
	h.waitConnected(t)
	botMsg, err := a.Send(context.Background(), gateway.Outbound{Chat: gateway.ChatRef{ChatID: fmt.Sprint(group.ID)}, Text: "I am here"})
	if err != nil {
		t.Fatal(err)
	}
	var botID int
	fmt.Sscan(botMsg.MessageID, &botID)

	cases := []struct {
		name      string
		send      func() telegramtest.Message
		text      string
		addressed bool
		thread    string
	}{
		{"mention at the start", func() telegramtest.Message { return srv.SendText(alice, group, "@hermes_test_bot what time is it?") }, "what time is it?", true, ""},
		{"mention inside", func() telegramtest.Message { return srv.SendText(alice, group, "hey @Hermes_Test_Bot look at this") }, "hey look at this", true, ""},
		{"chatter", func() telegramtest.Message { return srv.SendText(bob, group, "lunch at noon?") }, "lunch at noon?", false, ""},
		{"another bot's mention", func() telegramtest.Message { return srv.SendText(bob, group, "@other_bot hi") }, "@other_bot hi", false, ""},
		{"reply to the bot", func() telegramtest.Message {
			return srv.SendText(bob, group, "thanks", telegramtest.ReplyTo(botID))
		}, "thanks", true, ""},
		{"command for this bot", func() telegramtest.Message { return srv.SendText(alice, group, "/new@hermes_test_bot fresh start") }, "/new fresh start", true, ""},
		{"command for another bot", func() telegramtest.Message { return srv.SendText(alice, group, "/new@other_bot") }, "/new@other_bot", false, ""},
		{"bare command", func() telegramtest.Message { return srv.SendText(alice, group, "/usage") }, "/usage", true, ""},
		{"forum topic", func() telegramtest.Message {
			return srv.SendText(alice, forum, "@hermes_test_bot in the topic", telegramtest.InTopic(77))
		}, "in the topic", true, "77"},
	}
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			sent := c.send()
			got := h.waitMessages(t, i+1)[i]
			if got.ChatType != gateway.Group || got.Text != c.text || got.Addressed != c.addressed || got.Chat.ThreadID != c.thread {
				t.Errorf("got type %q text %q addressed %v thread %q; want group %q %v %q", got.ChatType, got.Text, got.Addressed, got.Chat.ThreadID, c.text, c.addressed, c.thread)
			}
			if want := fmt.Sprintf("%d:%d", sent.Chat.ID, sent.ID); got.MessageID != want {
				t.Errorf("message id %q, want %q", got.MessageID, want)
			}
		})
	}
}

func TestAttachmentsOpenTheFilesTheUserSent(t *testing.T) {
	srv := telegramtest.NewServer(t, telegramtest.Options{})
	h := newHandler()
	start(t, options(srv), h)
	dm := srv.DM(alice)
	photo := bytes.Repeat([]byte("full-size-photo "), 100)
	voice := []byte("OggS voice note")
	doc := []byte("%PDF-1.7 report")
	srv.SendPhoto(alice, dm, photo, "what is this?")
	srv.SendVoice(alice, dm, voice)
	srv.SendDocument(alice, dm, "report.pdf", "application/pdf", doc, "")

	got := h.waitMessages(t, 3)
	want := []struct {
		text, kind, name, mime string
		data                   []byte
	}{
		{"what is this?", "image", "photo.jpg", "image/jpeg", photo},
		{"", "voice", "voice.ogg", "audio/ogg", voice},
		{"", "file", "report.pdf", "application/pdf", doc},
	}
	for i, w := range want {
		m := got[i]
		if m.Text != w.text || len(m.Attachments) != 1 {
			t.Fatalf("message %d: text %q with %d attachments, want %q with one", i, m.Text, len(m.Attachments), w.text)
		}
		at := m.Attachments[0]
		if at.Kind != w.kind || at.Name != w.name || at.MIME != w.mime || at.Size != int64(len(w.data)) {
			t.Errorf("attachment %d = %s %s %s %d, want %s %s %s %d", i, at.Kind, at.Name, at.MIME, at.Size, w.kind, w.name, w.mime, len(w.data))
		}
		rc, err := at.Open(context.Background())
		if err != nil {
			t.Fatalf("open attachment %d: %v", i, err)
		}
		data, err := io.ReadAll(rc)
		rc.Close()
		if err != nil || !bytes.Equal(data, w.data) {
			t.Errorf("attachment %d holds %q (%v), want %q", i, data, err, w.data)
		}
	}
}
