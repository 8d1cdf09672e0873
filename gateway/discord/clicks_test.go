package discord

import (
	"context"
	"slices"
	"testing"

	"github.com/hermes-go/hermes/gateway"
	"github.com/hermes-go/hermes/gateway/discord/discordtest"
)

func approvalButtons() [][]gateway.Button {
	return [][]gateway.Button{{
		{Label: "Once", Data: "appr:7:once"},
		{Label: "Session", Data: "appr:7:session"},
		{Label: "Always (admins)", Data: "appr:7:always"},
		{Label: "Deny", Data: "appr:7:deny"},
	}}
}

func TestButtonsShowUnderTheMessage(t *testing.T) {
	t.Parallel()
	srv := discordtest.NewServer(t)
	r := start(t, srv)
	chat := gateway.ChatRef{ChatID: srv.DMChannel(alice)}
	sent := must(r.a.Send(context.Background(), gateway.Outbound{Chat: chat, Text: "Run `rm -rf build`?", Buttons: approvalButtons()}))

	m, _ := srv.Message(sent.MessageID)
	want := [][]discordtest.Button{{
		{Label: "Once", CustomID: "appr:7:once", Style: 3},
		{Label: "Session", CustomID: "appr:7:session", Style: 1},
		{Label: "Always (admins)", CustomID: "appr:7:always", Style: 1},
		{Label: "Deny", CustomID: "appr:7:deny", Style: 4},
	}}
	if !slices.EqualFunc(m.Buttons, want, slices.Equal) {
		t.Fatalf("buttons = %+v\nwant %+v", m.Buttons, want)
	}

	// Seven buttons in one row wrap into two rows.
	var seven []gateway.Button
	for i := range 7 {
		seven = append(seven, gateway.Button{Label: string(rune('A' + i)), Data: string(rune('a' + i))})
	}
	wide := must(r.a.Send(context.Background(), gateway.Outbound{Chat: chat, Text: "pick", Buttons: [][]gateway.Button{seven}}))
	m, _ = srv.Message(wide.MessageID)
	if len(m.Buttons) != 2 || len(m.Buttons[0]) != 5 || len(m.Buttons[1]) != 2 || m.Buttons[1][1].CustomID != "g" {
		t.Fatalf("seven buttons laid out as %+v", m.Buttons)
	}

	// An edit without buttons removes them.
	if err := r.a.Edit(context.Background(), chat, sent.MessageID, gateway.Outbound{Text: "Approved once."}); err != nil {
		t.Fatal(err)
	}
	if m, _ = srv.Message(sent.MessageID); m.Buttons != nil || m.Content != "Approved once." {
		t.Fatalf("after the edit: %+v", m)
	}
}

func TestClickIsAcknowledgedAndAnsweredOnlyToTheClicker(t *testing.T) {
	t.Parallel()
	srv := discordtest.NewServer(t)
	const ch = "3000000000000000001"
	r := start(t, srv)
	srv.PushMention(ch, alice, "clean the build dir")
	in := r.rec.message(t)
	card := must(r.a.Send(context.Background(), gateway.Outbound{Chat: in.Chat, Text: "Run `rm -rf build`?", Buttons: approvalButtons()}))

	srv.Click(card.MessageID, bob, "appr:7:once")
	c := r.rec.click(t)
	if c.Platform != "discord" || c.Chat != in.Chat || c.MessageID != card.MessageID || c.UserID != bob.ID || c.Data != "appr:7:once" {
		t.Fatalf("click = %+v", c)
	}
	// The press was acknowledged before the handler saw it.
	acked := srv.Interactions()
	if len(acked) != 1 || !slices.Equal(acked[0].Callbacks, []int{6}) {
		t.Fatalf("interactions when the handler got the click: %+v, want one acknowledged with type 6", acked)
	}

	if err := c.Answer(context.Background(), "Only the person who asked can approve."); err != nil {
		t.Fatal(err)
	}
	if err := c.Answer(context.Background(), "twice"); err == nil {
		t.Fatal("a second Answer succeeded")
	}
	got := srv.Interactions()[0]
	if len(got.Replies) != 1 || !got.Replies[0].Ephemeral() || got.Replies[0].Content != "Only the person who asked can approve." {
		t.Fatalf("replies = %+v, want one ephemeral answer", got.Replies)
	}
	// Nobody else sees it: the channel holds the question and the card.
	if msgs := srv.Messages(ch); len(msgs) != 2 {
		t.Fatalf("channel = %+v", msgs)
	}
	if m, _ := srv.Message(card.MessageID); len(m.Buttons) != 1 || m.Edits != 0 {
		t.Fatalf("the click changed the card: %+v", m)
	}
}

func TestClickInADirectMessage(t *testing.T) {
	t.Parallel()
	srv := discordtest.NewServer(t)
	r := start(t, srv)
	chat := gateway.ChatRef{ChatID: srv.DMChannel(alice)}
	card := must(r.a.Send(context.Background(), gateway.Outbound{Chat: chat, Text: "Which one?", Buttons: [][]gateway.Button{{{Label: "A", Data: "clar:1:a"}}}}))
	srv.Click(card.MessageID, alice, "clar:1:a")
	c := r.rec.click(t)
	if c.UserID != alice.ID || c.Chat != chat || c.Data != "clar:1:a" {
		t.Fatalf("click = %+v", c)
	}
}
