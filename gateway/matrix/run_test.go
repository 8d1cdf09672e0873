package matrix

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/hermes-go/hermes/gateway"
	"github.com/hermes-go/hermes/gateway/matrix/matrixtest"
)

// What was said before the bot first ran is not answered; what is said
// after is, once, even when a sync brings it again; after a restart on
// the same KV, what was said while the bot was down is handed over and
// nothing handed before is handed again. (An event a homeserver repeats
// after a restart is dropped by the gateway's store of seen messages:
// the conformance suite's redelivery scenario.)
func TestSyncResumesFromTheStoredToken(t *testing.T) {
	srv := matrixtest.NewServer(t)
	kv := gateway.NewMemoryKV()
	dm := srv.DM(alice)
	srv.Say(alice, dm, "said before the bot ever ran")
	r := start(t, srv, kv)
	first := srv.Say(alice, dm, "one")
	r.waitTexts(t, srv, "one")
	srv.Redeliver(first)
	srv.Say(alice, dm, "two")
	r.waitTexts(t, srv, "one", "two")
	if err := r.stop(); err != nil {
		t.Fatal(err)
	}
	since, ok, _ := kv.Get(context.Background(), "matrix:@hermes:test:since")
	if !ok || since == "" {
		t.Fatal("no sync token was stored")
	}

	srv.Say(alice, dm, "while away")
	r2 := start(t, srv, kv)
	r2.waitTexts(t, srv, "while away")
	in := r2.h.inbound()[0]
	if in.ChatType != gateway.DM || !in.Addressed || in.UserID != alice.ID || in.UserName != "Alice" || in.Chat.ChatID != dm {
		t.Fatalf("a DM was taken as %+v", in)
	}
}

// A message the handler could not take is synced again, not skipped.
func TestSyncRetriesWhatTheHandlerRefused(t *testing.T) {
	srv := matrixtest.NewServer(t)
	r := start(t, srv, gateway.NewMemoryKV())
	r.h.mu.Lock()
	r.h.refuse = 1
	r.h.mu.Unlock()
	srv.Say(alice, srv.DM(alice), "keep me")
	r.waitTexts(t, srv, "keep me")
	if !strings.Contains(r.log.String(), "matrix events not taken; syncing them again") {
		t.Fatalf("the refusal was not logged:\n%s", r.log.String())
	}
}

// In a group the bot answers what mentions it (by m.mentions, user id or
// display name) or replies to its messages; the rest is handed over
// unaddressed (the gateway decides), and the leading mention is taken
// out of the text. A thread's messages carry the thread's root.
func TestGroupMessagesAreAddressedByMentionOrReply(t *testing.T) {
	srv := matrixtest.NewServer(t)
	team := srv.AddRoom(alice, bob)
	r := start(t, srv, gateway.NewMemoryKV())
	sent, err := r.a.Send(context.Background(), gateway.Outbound{Chat: gateway.ChatRef{ChatID: team}, Text: "hello team"})
	if err != nil {
		t.Fatal(err)
	}
	srv.Say(alice, team, "just chatting")
	srv.Say(alice, team, "Hermes: what time is it?")
	srv.Say(bob, team, "ask @hermes:test about it")
	srv.Post(bob, team, "m.room.message", map[string]any{"msgtype": "m.text", "body": "> <@hermes:test> hello team\n\nthanks!",
		"m.relates_to": map[string]any{"m.in_reply_to": map[string]any{"event_id": sent.MessageID}}})
	srv.Post(alice, team, "m.room.message", map[string]any{"msgtype": "m.text", "body": "in a thread",
		"m.mentions":   map[string]any{"user_ids": []string{"@hermes:test"}},
		"m.relates_to": map[string]any{"rel_type": "m.thread", "event_id": "$root"}})
	r.waitTexts(t, srv, "just chatting", "what time is it?", "ask @hermes:test about it", "thanks!", "in a thread")
	want := []bool{false, true, true, true, true}
	for i, in := range r.h.inbound() {
		if in.ChatType != gateway.Group || in.Addressed != want[i] {
			t.Fatalf("message %d %q: %s addressed %v, want group addressed %v", i, in.Text, in.ChatType, in.Addressed, want[i])
		}
	}
	if got := r.h.inbound()[4].Chat; got.ThreadID != "$root" || got.ChatID != team {
		t.Fatalf("the thread's message is in %+v", got)
	}
}

// An invite from an allowed user is joined, and the room's messages are
// then handed over; an invite from anyone else is left unanswered, and
// logged.
func TestInvitesOfAllowedUsersAreJoined(t *testing.T) {
	srv := matrixtest.NewServer(t)
	r := start(t, srv, gateway.NewMemoryKV())
	strangers := srv.Invite(mallory)
	room := srv.Invite(alice)
	if !srv.WaitFor(wait, func() bool { return srv.Joined(room) }) {
		t.Fatalf("alice's invite was not joined; log:\n%s", r.log.String())
	}
	srv.Say(alice, room, "thanks for joining")
	r.waitTexts(t, srv, "thanks for joining")
	if srv.Joined(strangers) || !strings.Contains(r.log.String(), "matrix invite left unanswered") {
		t.Fatalf("mallory's invite: joined %v; log:\n%s", srv.Joined(strangers), r.log.String())
	}
}

// A dropped connection shows as not connected, and the bot syncs again
// once the homeserver is back, losing nothing said meanwhile.
func TestSyncReconnects(t *testing.T) {
	srv := matrixtest.NewServer(t)
	r := start(t, srv, gateway.NewMemoryKV())
	dm := srv.DM(alice)
	srv.SetDown(true)
	if !srv.WaitFor(wait, func() bool { return !r.h.lastState().Connected }) {
		t.Fatal("a dropped sync was not reported")
	}
	if d := r.h.lastState().Detail; !strings.HasPrefix(d, "cannot reach the homeserver") {
		t.Fatalf("not connected because %q", d)
	}
	srv.Say(alice, dm, "while down")
	srv.SetDown(false)
	r.waitTexts(t, srv, "while down")
	if !r.h.lastState().Connected {
		t.Fatal("not connected again")
	}
}

// A token the homeserver refuses ends Run with the reason.
func TestRunEndsOnARefusedToken(t *testing.T) {
	srv := matrixtest.NewServer(t)
	a, err := New(Options{Homeserver: srv.URL(), AccessToken: "wrong"})
	if err != nil {
		t.Fatal(err)
	}
	h := &recorder{srv: srv}
	err = a.Run(context.Background(), h)
	if err == nil || !strings.Contains(err.Error(), "refused the access token") {
		t.Fatalf("Run returned %v", err)
	}
	if s := h.lastState(); s.Connected || !strings.Contains(s.Detail, "M_UNKNOWN_TOKEN") {
		t.Fatalf("state %+v", s)
	}
}

// More messages while the bot was away than one sync holds (the
// timeline comes limited) are read back with /messages: every one is
// handed over, in order, none twice.
func TestALimitedSyncIsFilledIn(t *testing.T) {
	srv := matrixtest.NewServer(t)
	kv := gateway.NewMemoryKV()
	dm := srv.DM(alice)
	r := start(t, srv, kv)
	srv.Say(alice, dm, "before")
	r.waitTexts(t, srv, "before")
	r.stop()
	var want []string
	for i := range 250 {
		want = append(want, fmt.Sprintf("away %d", i))
		srv.Say(alice, dm, want[i])
	}
	r2 := start(t, srv, kv)
	r2.waitTexts(t, srv, want...)
	pages := 0
	for _, req := range srv.Requests() {
		if req.Kind == "messages" {
			pages++
		}
	}
	if pages != 2 {
		t.Fatalf("%d pages of /messages read back 150 events, want 2", pages)
	}
}
