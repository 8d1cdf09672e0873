package matrix

import (
	"context"
	"io"
	"strings"
	"testing"

	"github.com/hermes-go/hermes/gateway"
	"github.com/hermes-go/hermes/gateway/matrix/matrixtest"
)

var approvalButtons = [][]gateway.Button{{{Label: "Once", Data: "ap:1:once"}, {Label: "Session", Data: "ap:1:session"},
	{Label: "Always (admins only)", Data: "ap:1:always"}, {Label: "Deny", Data: "ap:1:deny"}}}

// A card's buttons are the bot's reactions on it, keys starting with the
// labels; a person's reaction with a key is a Click with that button's
// data, answered by a notice mentioning them; an edit without buttons
// takes the reactions away.
func TestButtonsAreReactions(t *testing.T) {
	srv := matrixtest.NewServer(t)
	team := srv.AddRoom(alice, bob)
	r := start(t, srv, gateway.NewMemoryKV())
	ctx := context.Background()
	chat := gateway.ChatRef{ChatID: team}
	card, err := r.a.Send(ctx, gateway.Outbound{Chat: chat, Text: "Run `rm -rf victim`?", Buttons: approvalButtons})
	if err != nil {
		t.Fatal(err)
	}
	ms := botMessages(srv, team)
	var keys []string
	for _, re := range ms[0].Reactions {
		keys = append(keys, re.Key)
	}
	if strings.Join(keys, "|") != "Once ✅|Session 🔁|Always (admins only) ♾️|Deny ❌" {
		t.Fatalf("the card's reactions are %q", keys)
	}
	if !strings.Contains(ms[0].Body, "React with “Once ✅”") {
		t.Fatalf("the card does not say how to answer: %q", ms[0].Body)
	}

	srv.React(bob, team, card.MessageID, "👍") // not a button
	srv.React(bob, team, card.MessageID, "Session 🔁")
	srv.React(alice, team, card.MessageID, "✅") // the emoji alone, as a client's picker sends it
	if !srv.WaitFor(wait, func() bool { r.h.mu.Lock(); defer r.h.mu.Unlock(); return len(r.h.clicks) == 2 }) {
		t.Fatalf("clicks: %+v", r.h.clicks)
	}
	r.h.mu.Lock()
	bobs, alices := r.h.clicks[0], r.h.clicks[1]
	r.h.mu.Unlock()
	if bobs.UserID != bob.ID || bobs.Data != "ap:1:session" || bobs.MessageID != card.MessageID || bobs.Chat.ChatID != team {
		t.Fatalf("bob's reaction was %+v", bobs)
	}
	if alices.UserID != alice.ID || alices.Data != "ap:1:once" {
		t.Fatalf("alice's reaction was %+v", alices)
	}
	if err := bobs.Answer(ctx, "Only the person who asked can answer."); err != nil {
		t.Fatal(err)
	}
	if err := bobs.Answer(ctx, "again"); err == nil {
		t.Fatal("a press was answered twice")
	}
	ms = botMessages(srv, team)
	answer := ms[len(ms)-1]
	mentions := answer.Content["m.mentions"].(map[string]any)["user_ids"].([]any)
	reply := answer.Content["m.relates_to"].(map[string]any)["m.in_reply_to"].(map[string]any)
	if answer.MsgType != "m.notice" || answer.Body != bob.ID+": Only the person who asked can answer." ||
		len(mentions) != 1 || mentions[0] != bob.ID || reply["event_id"] != card.MessageID {
		t.Fatalf("the answer to bob is %+v", answer)
	}

	if err := r.a.Edit(ctx, chat, card.MessageID, gateway.Outbound{Chat: chat, Text: "Approved once."}); err != nil {
		t.Fatal(err)
	}
	ms = botMessages(srv, team)
	for _, re := range ms[0].Reactions {
		if re.Sender == srv.Bot().ID {
			t.Fatalf("the closed card still has the bot's reaction %q", re.Key)
		}
	}
	if ms[0].Body != "Approved once." {
		t.Fatalf("the closed card reads %q", ms[0].Body)
	}
}

// A room with end-to-end encryption is reported: one notice in the room
// (not repeated after a restart), a log line, and none of its messages
// handed over as if they could be read.
func TestEncryptedRoomsAreReported(t *testing.T) {
	srv := matrixtest.NewServer(t)
	kv := gateway.NewMemoryKV()
	room := srv.AddRoom(alice, bob)
	r := start(t, srv, kv)
	srv.Encrypt(alice, room)
	srv.Post(alice, room, "m.room.encrypted", map[string]any{"algorithm": "m.megolm.v1.aes-sha2", "ciphertext": "..."})
	srv.Post(bob, room, "m.room.encrypted", map[string]any{"algorithm": "m.megolm.v1.aes-sha2", "ciphertext": "..."})
	if !srv.WaitFor(wait, func() bool { return len(botMessages(srv, room)) > 0 }) {
		t.Fatalf("no notice; log:\n%s", r.log.String())
	}
	srv.Say(alice, srv.DM(alice), "after")
	r.waitTexts(t, srv, "after")
	ms := botMessages(srv, room)
	if len(ms) != 1 || ms[0].MsgType != "m.notice" || ms[0].Body != EncryptedNotice {
		t.Fatalf("the encrypted room got %+v", ms)
	}
	if n := strings.Count(r.log.String(), "matrix room is end-to-end encrypted"); n != 1 {
		t.Fatalf("logged %d times:\n%s", n, r.log.String())
	}
	r.stop()

	// A room already encrypted before the bot saw the event: found when a
	// message comes, and its notice is not repeated.
	r2 := start(t, srv, kv)
	srv.Say(bob, room, "a plaintext message in an encrypted room")
	srv.Say(alice, srv.DM(alice), "after the restart")
	r2.waitTexts(t, srv, "after the restart")
	// One sync may carry both rooms, in either order: wait for the log
	// line, then for a later sync, which is handled after the first one
	// (and its notice, had it been sent) is done.
	if !srv.WaitFor(wait, func() bool { return strings.Contains(r2.log.String(), "matrix room is end-to-end encrypted") }) {
		t.Fatalf("the encrypted room was not logged after the restart:\n%s", r2.log.String())
	}
	srv.Say(alice, srv.DM(alice), "a later sync")
	r2.waitTexts(t, srv, "after the restart", "a later sync")
	if ms := botMessages(srv, room); len(ms) != 1 {
		t.Fatalf("the notice was repeated: %+v", ms)
	}
}

// A person's image is an attachment the gateway can open, with the
// caption as text.
func TestAttachmentsOpen(t *testing.T) {
	srv := matrixtest.NewServer(t)
	r := start(t, srv, gateway.NewMemoryKV())
	uri := srv.AddMedia([]byte("jpeg bytes"))
	srv.Post(alice, srv.DM(alice), "m.room.message", map[string]any{"msgtype": "m.image", "body": "what is this?",
		"filename": "cat.jpg", "url": uri, "info": map[string]any{"mimetype": "image/jpeg", "size": 10}})
	r.waitTexts(t, srv, "what is this?")
	atts := r.h.inbound()[0].Attachments
	if len(atts) != 1 || atts[0].Kind != "image" || atts[0].Name != "cat.jpg" || atts[0].MIME != "image/jpeg" {
		t.Fatalf("attachments %+v", atts)
	}
	rc, err := atts[0].Open(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	if data, _ := io.ReadAll(rc); string(data) != "jpeg bytes" {
		t.Fatalf("opened %q", data)
	}
}
