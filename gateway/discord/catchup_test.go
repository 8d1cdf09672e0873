package discord

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/hermes-go/hermes/gateway"
	"github.com/hermes-go/hermes/gateway/discord/discordtest"
)

func TestANewAdapterCatchesUpOnWhatWasSaidWhileItWasDown(t *testing.T) {
	t.Parallel()
	srv := discordtest.NewServer(t)
	const ch = "3000000000000000001"
	kv := &mapKV{}
	withKV := func(o *Options) { o.KV = kv }

	first := start(t, srv, withKV)
	dm := srv.PushDM(alice, "before the restart")
	mention := srv.PushMention(ch, bob, "also before")
	expectInOrder(t, first.rec, dm.ID, mention.ID)
	first.stop(t) // closes with 1000: Discord ends the session

	missedDM := srv.PushDM(alice, "while the gateway was down")
	missedChatter := srv.Push(discordtest.Message{ChannelID: ch, Author: alice, Content: "chatter while down"})

	second := start(t, srv, withKV)
	got := second.rec.message(t)
	if got.MessageID != missedDM.ID || got.ChatType != gateway.DM || !got.Addressed || got.Text != "while the gateway was down" {
		t.Fatalf("first caught-up message = %+v, want the missed DM", got)
	}
	got = second.rec.message(t)
	if got.MessageID != missedChatter.ID || got.ChatType != gateway.Group || got.Addressed || got.Chat != (gateway.ChatRef{ChatID: ch}) {
		t.Fatalf("second caught-up message = %+v, want the unaddressed group message", got)
	}
	second.rec.noMessageBefore(t, srv, ch)
	if srv.Identifies() != 2 {
		t.Fatalf("identifies = %d", srv.Identifies())
	}
}

func TestAMessageTheGatewayRefusedIsHandedOverAgainAfterARestart(t *testing.T) {
	t.Parallel()
	srv := discordtest.NewServer(t)
	kv := &mapKV{}
	withKV := func(o *Options) { o.KV = kv }

	first := start(t, srv, withKV)
	first.rec.refuseText("refused by the store")
	a := srv.PushDM(alice, "taken")
	b := srv.PushDM(alice, "refused by the store")
	c := srv.PushDM(alice, "taken after")
	expectInOrder(t, first.rec, a.ID, c.ID)
	first.stop(t)

	second := start(t, srv, withKV)
	// From the refused message on; the gateway drops c, which it has.
	expectInOrder(t, second.rec, b.ID, c.ID)
}

func TestNothingToCatchUpOnReadsNoHistory(t *testing.T) {
	t.Parallel()
	srv := discordtest.NewServer(t)
	r := start(t, srv)
	m := srv.PushDM(alice, "hi")
	expectInOrder(t, r.rec, m.ID)
	for _, req := range srv.Requests() {
		if req.Method == "GET" && len(req.Path) > len("/messages") && req.Path[len(req.Path)-len("/messages"):] == "/messages" {
			t.Fatalf("a fresh adapter read history: %s %s", req.Method, req.Path)
		}
	}
}

func TestCatchUpLeavesOutMessagesOlderThanADay(t *testing.T) {
	t.Parallel()
	srv := discordtest.NewServer(t)
	kv := &mapKV{}
	first := start(t, srv, func(o *Options) { o.KV = kv })
	a := srv.PushDM(alice, "before")
	expectInOrder(t, first.rec, a.ID)
	first.stop(t)
	srv.PushDM(alice, "said while the gateway was down")

	later := func() time.Time { return time.Now().Add(25 * time.Hour) }
	second := start(t, srv, func(o *Options) { o.KV = kv; o.Now = later })
	second.rec.noMessageBefore(t, srv, srv.DMChannel(alice))
}

func TestLastSeenKeepsTheMostRecentChannels(t *testing.T) {
	t.Parallel()
	kv := &mapKV{}
	l := newLastSeen(kv, slog.New(slog.NewTextHandler(io.Discard, nil)))
	ctx := context.Background()
	for i := range seenChannels + 10 {
		l.note(ctx, fmt.Sprintf("c%d", i), "", fmt.Sprintf("%d", 1000+i))
	}
	l.note(ctx, "c59", "", "999") // older than what c59 has: ignored
	reloaded := newLastSeen(kv, slog.New(slog.NewTextHandler(io.Discard, nil)))
	reloaded.load(ctx)
	got := reloaded.take()
	if len(got) != seenChannels {
		t.Fatalf("%d channels kept, want %d", len(got), seenChannels)
	}
	if _, ok := got["c9"]; ok {
		t.Fatal("an old channel was kept over a recent one")
	}
	if got["c59"].ID != "1059" {
		t.Fatalf("c59 = %+v", got["c59"])
	}
}
