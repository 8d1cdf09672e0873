package telegram_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/hermes-go/hermes/gateway"
	"github.com/hermes-go/hermes/gateway/telegram/telegramtest"
)

func TestClickCarriesThePressAndAnswersOnlyTheClicker(t *testing.T) {
	srv := telegramtest.NewServer(t, telegramtest.Options{})
	h := newHandler()
	answered := make(chan error, 2)
	h.onClick = func(c gateway.Click) {
		// The gateway answers from its own goroutine, after the press
		// was handed over.
		go func() {
			answered <- c.Answer(context.Background(), "Only Alice can answer this")
			answered <- c.Answer(context.Background(), "twice")
		}()
	}
	a := start(t, options(srv), h)
	group := srv.Group("team")
	h.waitConnected(t)
	sent, err := a.Send(context.Background(), gateway.Outbound{Chat: ref(group), Text: "Run rm?", Buttons: [][]gateway.Button{{{Label: "Deny", Data: "appr:9:deny"}}}})
	if err != nil {
		t.Fatal(err)
	}
	var msgID int
	fmt.Sscan(sent.MessageID, &msgID)
	query, err := srv.Press(bob, group, msgID, "appr:9:deny")
	if err != nil {
		t.Fatal(err)
	}

	h.waitFor(t, "the click", func() bool { return len(h.Clicks()) == 1 })
	c := h.Clicks()[0]
	if c.Platform != "telegram" || c.Chat != ref(group) || c.MessageID != sent.MessageID || c.UserID != "1002" || c.Data != "appr:9:deny" {
		t.Errorf("click %+v, want bob's press of appr:9:deny on message %s", c, sent.MessageID)
	}
	if err := <-answered; err != nil {
		t.Fatalf("Answer: %v", err)
	}
	if err := <-answered; err == nil {
		t.Error("a second Answer succeeded; a press is answered once")
	}
	if text, ok := srv.Answer(query); !ok || text != "Only Alice can answer this" {
		t.Errorf("the press was answered %v with %q", ok, text)
	}
	if n := len(srv.Calls("answerCallbackQuery")); n != 1 {
		t.Errorf("%d answerCallbackQuery calls, want 1", n)
	}
}

func TestUnansweredPressIsAnsweredEmpty(t *testing.T) {
	srv := telegramtest.NewServer(t, telegramtest.Options{})
	h := newHandler()
	o := options(srv)
	o.AnswerTimeout = 20 * time.Millisecond
	a := start(t, o, h)
	dm := srv.DM(alice)
	h.waitConnected(t)
	sent, err := a.Send(context.Background(), gateway.Outbound{Chat: ref(dm), Text: "Pick", Buttons: [][]gateway.Button{{{Label: "A", Data: "a"}}}})
	if err != nil {
		t.Fatal(err)
	}
	var msgID int
	fmt.Sscan(sent.MessageID, &msgID)
	query, _ := srv.Press(alice, dm, msgID, "a")
	h.waitFor(t, "the click", func() bool { return len(h.Clicks()) == 1 })
	if !srv.WaitFor(wait, func() bool { _, ok := srv.Answer(query); return ok }) {
		t.Fatal("the press was never answered")
	}
	if text, _ := srv.Answer(query); text != "" {
		t.Errorf("answered %q, want an empty answer", text)
	}
	if err := h.Clicks()[0].Answer(context.Background(), "late"); err == nil {
		t.Error("Answer after the empty answer succeeded")
	}
}
