package signal

import (
	"context"
	"io"
	"strconv"
	"testing"

	"github.com/hermes-go/hermes/gateway"
	"github.com/hermes-go/hermes/gateway/signal/signaltest"
)

// A direct message is an Inbound from the person, in the chat named by
// their number (their UUID when they hide it), addressed, with the id
// sender:timestamp.
func TestDirectMessages(t *testing.T) {
	srv := signaltest.NewServer(t, signaltest.Options{})
	_, h := start(t, srv, nil)
	m1 := srv.Say(alice, signaltest.DM(alice), "hello")
	m2 := srv.Say(hidden, signaltest.DM(hidden), "it's me")
	h.waitFor(t, "two messages", func() bool { return len(h.msgs) == 2 })
	got := h.messages()
	want := []gateway.Inbound{
		{Platform: "signal", Chat: gateway.ChatRef{ChatID: alice.Number}, ChatType: gateway.DM, MessageID: m1.ID(), UserID: alice.Number, UserName: "Alice", Text: "hello", Addressed: true},
		{Platform: "signal", Chat: gateway.ChatRef{ChatID: hidden.UUID}, ChatType: gateway.DM, MessageID: m2.ID(), UserID: hidden.UUID, UserName: "Carol", Text: "it's me", Addressed: true},
	}
	for i := range want {
		g := got[i]
		g.Attachments = nil
		if g.Platform != want[i].Platform || g.Chat != want[i].Chat || g.ChatType != want[i].ChatType || g.MessageID != want[i].MessageID ||
			g.UserID != want[i].UserID || g.UserName != want[i].UserName || g.Text != want[i].Text || g.Addressed != want[i].Addressed {
			t.Fatalf("message %d is %+v, want %+v", i, g, want[i])
		}
	}
}

// In a group, a message is addressed when it mentions the bot (the
// mention is taken out), quotes one of the bot's messages or is a
// command; other messages are handed over unaddressed. Typing notices
// are no messages.
func TestGroupMessages(t *testing.T) {
	srv := signaltest.NewServer(t, signaltest.Options{})
	a, h := start(t, srv, nil)
	team := signaltest.Group("team")
	sent, err := a.Send(context.Background(), gateway.Outbound{Chat: gateway.ChatRef{ChatID: team.GroupID}, Text: "I am the bot"})
	if err != nil {
		t.Fatal(err)
	}
	srv.Mention(alice, team, "what time is it?")
	srv.Say(bob, team, "lunch?")
	srv.Typing(bob)
	var ts int64
	for _, m := range srv.BotMessages(team.GroupID) {
		if m.Text == "I am the bot" {
			ts = m.Timestamp
		}
	}
	if sent.MessageID == "" || sent.MessageID != strconv.FormatInt(ts, 10) {
		t.Fatalf("Send returned %q, the message's timestamp is %d", sent.MessageID, ts)
	}
	srv.Reply(bob, team, ts, "thanks")
	srv.Say(bob, team, "/status")
	h.waitFor(t, "four messages", func() bool { return len(h.msgs) == 4 })
	type seen struct {
		text      string
		addressed bool
	}
	want := []seen{{"what time is it?", true}, {"lunch?", false}, {"thanks", true}, {"/status", true}}
	for i, m := range h.messages() {
		if m.Chat.ChatID != team.GroupID || m.ChatType != gateway.Group || (seen{m.Text, m.Addressed}) != want[i] {
			t.Fatalf("message %d is %+v, want %+v in %s", i, m, want[i], team.GroupID)
		}
	}
}

// A person's attachments are listed with their kind and fetched from the
// daemon by getAttachment, in a direct chat and in a group.
func TestAttachmentsAreFetched(t *testing.T) {
	srv := signaltest.NewServer(t, signaltest.Options{})
	_, h := start(t, srv, nil)
	team := signaltest.Group("team")
	srv.SayWithAttachment(alice, signaltest.DM(alice), "look", signaltest.Attachment{Name: "cat.png", ContentType: "image/png", Data: []byte("PNGDATA")},
		signaltest.Attachment{ContentType: "audio/aac", Data: []byte("VOICE")})
	srv.SayWithAttachment(bob, team, "", signaltest.Attachment{Name: "notes.txt", ContentType: "text/plain", Data: []byte("notes")})
	h.waitFor(t, "two messages", func() bool { return len(h.msgs) == 2 })
	msgs := h.messages()
	check := func(at gateway.Attachment, kind, name, content string) {
		t.Helper()
		if at.Kind != kind || at.Name != name || at.Size != int64(len(content)) {
			t.Fatalf("attachment %+v, want a %s named %s", at, kind, name)
		}
		rc, err := at.Open(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		defer rc.Close()
		b, _ := io.ReadAll(rc)
		if string(b) != content {
			t.Fatalf("%s holds %q, want %q", name, b, content)
		}
	}
	if len(msgs[0].Attachments) != 2 || msgs[0].Text != "look" {
		t.Fatalf("the first message: %+v", msgs[0])
	}
	check(msgs[0].Attachments[0], "image", "cat.png", "PNGDATA")
	check(msgs[0].Attachments[1], "voice", "voice", "VOICE")
	// A group message with a file and no mention still carries it (the
	// gateway decides whether it was for the bot).
	if len(msgs[1].Attachments) != 1 {
		t.Fatalf("the group message: %+v", msgs[1])
	}
	check(msgs[1].Attachments[0], "file", "notes.txt", "notes")
}

// A reaction with a listed emoji on the bot's message is a Click with
// the button's data, from the person who reacted; its Answer is a direct
// message to them alone. Other reactions, and reactions on messages
// whose buttons an edit took away, are nothing.
func TestReactionsPressButtons(t *testing.T) {
	srv := signaltest.NewServer(t, signaltest.Options{})
	a, h := start(t, srv, nil)
	team := signaltest.Group("team")
	ctx := context.Background()
	chat := gateway.ChatRef{ChatID: team.GroupID}
	sent, err := a.Send(ctx, gateway.Outbound{Chat: chat, Text: "Run it?", Buttons: [][]gateway.Button{{{Label: "Yes", Data: "ap:x:once"}, {Label: "No", Data: "ap:x:deny"}}}})
	if err != nil {
		t.Fatal(err)
	}
	card := srv.BotMessages(team.GroupID)[0]
	if card.Text != "Run it?\n\nReact to choose:\n1️⃣ Yes\n2️⃣ No" {
		t.Fatalf("the card reads %q", card.Text)
	}
	srv.React(bob, team, card.Timestamp, "❤️")
	srv.React(bob, team, card.Timestamp, "2\u20e3") // without the variation selector
	h.waitFor(t, "a click", func() bool { return len(h.clicks) == 1 })
	c := h.clicks[0]
	if c.Data != "ap:x:deny" || c.UserID != bob.Number || c.Chat != chat || c.MessageID != sent.MessageID {
		t.Fatalf("the click is %+v", c)
	}
	if err := c.Answer(ctx, "Only the person who asked can answer this."); err != nil {
		t.Fatal(err)
	}
	if ms := srv.BotMessages(bob.Number); len(ms) != 1 || ms[0].Text != "Only the person who asked can answer this." {
		t.Fatalf("bob's direct chat holds %+v", ms)
	}
	if err := c.Answer(ctx, "again"); err == nil {
		t.Fatal("a second Answer was taken")
	}

	if err := a.Edit(ctx, chat, sent.MessageID, gateway.Outbound{Chat: chat, Text: "Run it?\n\nDenied."}); err != nil {
		t.Fatal(err)
	}
	srv.React(alice, team, card.Timestamp, "1️⃣")
	srv.Say(alice, signaltest.DM(alice), "after")
	h.waitFor(t, "the message after", func() bool { return len(h.msgs) == 1 })
	if len(h.clicks) != 1 {
		t.Fatalf("a reaction on a closed card clicked: %+v", h.clicks)
	}
	if got := srv.BotMessages(team.GroupID)[0]; got.Text != "Run it?\n\nDenied." || len(got.History) != 2 {
		t.Fatalf("the edited card: %+v", got)
	}
}
