package discord

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/hermes-go/hermes/gateway"
	"github.com/hermes-go/hermes/gateway/discord/discordtest"
)

func disconnected(detail string) func(gateway.State) bool {
	return func(s gateway.State) bool { return !s.Connected && s.Detail == detail }
}

// expectInOrder checks the next messages are exactly these, in order.
func expectInOrder(t *testing.T, rec *recorder, ids ...string) {
	t.Helper()
	for _, id := range ids {
		if m := rec.message(t); m.MessageID != id {
			t.Fatalf("got message %s (%q), want %s", m.MessageID, m.Text, id)
		}
	}
}

func TestDroppedSocketResumesWithoutLosingOrRepeatingAMessage(t *testing.T) {
	t.Parallel()
	srv := discordtest.NewServer(t)
	r := start(t, srv)
	dm := srv.DMChannel(alice)

	before := srv.PushDM(alice, "before the drop")
	expectInOrder(t, r.rec, before.ID)

	srv.Drop()
	during := srv.PushDM(alice, "while the socket was down")
	r.rec.state(t, disconnected(socketLost), "the lost connection")
	r.rec.connected(t)
	expectInOrder(t, r.rec, during.ID)
	r.rec.noMessageBefore(t, srv, dm)

	if srv.Resumes() != 1 || srv.Identifies() != 1 {
		t.Fatalf("identifies = %d, resumes = %d; want the session identified once and resumed once", srv.Identifies(), srv.Resumes())
	}
}

func TestReconnectRequestResumesTheSession(t *testing.T) {
	t.Parallel()
	srv := discordtest.NewServer(t)
	r := start(t, srv)

	srv.Reconnect()
	// Sent right behind op 7 on the old socket, which the client leaves
	// unread: the RESUME must bring it back.
	m := srv.PushDM(alice, "right after op 7")
	r.rec.state(t, func(s gateway.State) bool { return !s.Connected }, "a disconnection")
	r.rec.connected(t)
	expectInOrder(t, r.rec, m.ID)
	r.rec.noMessageBefore(t, srv, srv.DMChannel(alice))
	if srv.Resumes() != 1 || srv.Identifies() != 1 {
		t.Fatalf("identifies = %d, resumes = %d; want one of each", srv.Identifies(), srv.Resumes())
	}
}

func TestInvalidSessionStartsANewOneAndCatchesUp(t *testing.T) {
	t.Parallel()
	srv := discordtest.NewServer(t)
	r := start(t, srv)
	a := srv.PushDM(alice, "in the first session")
	expectInOrder(t, r.rec, a.ID)

	srv.InvalidateSession(false)
	// Discord delivers nothing while the bot has no session; the adapter
	// reads the channel's history once the new session starts.
	b := srv.PushDM(alice, "between the sessions")
	expectInOrder(t, r.rec, b.ID)
	if srv.Identifies() != 2 {
		t.Fatalf("identifies = %d, want a second session", srv.Identifies())
	}
}

func TestUnacknowledgedHeartbeatsReconnectAndSaySo(t *testing.T) {
	t.Parallel()
	// Discord's interval (41.25 s): discordgo's own check would take five
	// of them; the adapter's watchdog must find the dead socket.
	srv := discordtest.NewServer(t)
	r := start(t, srv, func(o *Options) { o.HeartbeatTimeout = 150 * time.Millisecond })

	srv.WithholdAcks()
	st := r.rec.state(t, func(s gateway.State) bool { return !s.Connected }, "the dead socket")
	if st.Detail != "heartbeat not acknowledged: reconnecting" {
		t.Fatalf("state = %+v, want the heartbeat named as the reason", st)
	}
	m := srv.PushDM(alice, "sent to a zombie socket")
	if st := r.rec.connected(t); st.Detail != "@hermes" {
		t.Fatalf("state = %+v", st)
	}
	expectInOrder(t, r.rec, m.ID)
	r.rec.noMessageBefore(t, srv, srv.DMChannel(alice))
	if srv.Resumes() != 1 {
		t.Fatalf("resumes = %d, want the session resumed on a new socket", srv.Resumes())
	}
	beats := 0
	for _, op := range srv.Ops() {
		if op.Op == 1 && op.Conn == 1 {
			beats++
		}
	}
	if beats < 2 {
		t.Fatalf("%d heartbeats on the first socket, want discordgo's first one and the watchdog's", beats)
	}
}

func TestRefusedTokenEndsRun(t *testing.T) {
	t.Parallel()
	srv := discordtest.NewServer(t)
	a := must(New(Options{Token: "wrong", APIURL: srv.URL(), Backoff: 10 * time.Millisecond}))
	rec := newRecorder()
	err := a.Run(context.Background(), rec)
	if err == nil || !strings.Contains(err.Error(), "token was refused") {
		t.Fatalf("Run = %v, want the token refused", err)
	}
	if h := rec.reported(); len(h) == 0 || h[0].Connected || !strings.Contains(h[0].Detail, "token was refused") {
		t.Fatalf("states = %+v, want not connected because of the token", h)
	}
}

func TestDisallowedMessageContentIntentEndsRun(t *testing.T) {
	t.Parallel()
	srv := discordtest.NewServer(t)
	srv.AllowMessageContent(false)
	a := must(New(Options{Token: srv.Token(), APIURL: srv.URL(), Backoff: 10 * time.Millisecond}))
	rec := newRecorder()
	err := a.Run(context.Background(), rec)
	if err == nil || !strings.Contains(err.Error(), "Message Content intent") {
		t.Fatalf("Run = %v, want the disallowed intent explained", err)
	}
	h := rec.reported()
	if len(h) == 0 || h[0].Connected || !strings.Contains(h[0].Detail, "4014") {
		t.Fatalf("states = %+v, want not connected with close code 4014", h)
	}
}

func TestUnreachableDiscordIsRetriedAndReported(t *testing.T) {
	t.Parallel()
	srv := discordtest.NewServer(t)
	srv.Fail("GET", "/users/@me", discordtest.Failure{Status: 502, Message: "Bad Gateway", Times: 2})
	r := launch(t, srv)
	st := r.rec.state(t, func(s gateway.State) bool { return !s.Connected }, "Discord unreachable")
	if !strings.Contains(st.Detail, "502") {
		t.Fatalf("state = %+v, want the 502 named", st)
	}
	r.rec.connected(t)
	if n := len(srv.RequestsTo("GET", "/users/@me")); n != 3 {
		t.Fatalf("GET /users/@me called %d times, want 3 (two failures, then success)", n)
	}
}

func TestRunEndsWhenItsContextEnds(t *testing.T) {
	t.Parallel()
	srv := discordtest.NewServer(t)
	r := start(t, srv)
	r.stop(t)
	h := r.rec.reported()
	if last := h[len(h)-1]; last.Connected || last.Detail != "stopped" {
		t.Fatalf("last state = %+v, want stopped", last)
	}
	if srv.Connected() {
		t.Fatal("the session still runs on a socket after Run returned")
	}
}
