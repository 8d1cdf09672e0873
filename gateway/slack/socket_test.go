package slack_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/hermes-go/hermes/gateway"
	"github.com/hermes-go/hermes/gateway/slack"
	"github.com/hermes-go/hermes/gateway/slack/slacktest"
)

func TestDroppedSocketBeforeTheAckRedeliversWithoutRepeating(t *testing.T) {
	srv := slacktest.NewServer(t)
	f := start(t, srv, nil)
	gate := make(chan struct{})
	f.rec.store = func(m gateway.Inbound) error {
		if m.Text == "one" {
			<-gate // the socket drops while the message is being stored
		}
		return nil
	}
	f.connected(t)

	one := srv.DM("U1", "one")
	waitFor(t, srv, f.rec, "the handler to get the message", func() bool { return len(f.rec.offered()) == 1 })
	if !srv.DropSocket() {
		t.Fatal("no socket to drop")
	}
	close(gate)

	f.acked(t, one)
	d := srv.Deliveries(one.Envelopes[0])
	if len(d) != 2 || d[0].Socket != 1 || d[1].Socket != 2 || d[1].RetryAttempt != 1 {
		t.Fatalf("deliveries = %+v, want the first on socket 1 and a retry on socket 2", d)
	}
	two := srv.DM("U1", "two")
	f.acked(t, two)
	if got := f.rec.offered(); len(got) != 2 || got[0] != one.MessageID || got[1] != two.MessageID {
		t.Fatalf("handler was offered %v, want each message once", got)
	}
	if !f.rec.sawState(false, "reconnecting") {
		t.Fatalf("states %+v, want a not connected state while reconnecting", f.rec.stateLog())
	}
	if !f.rec.last().Connected {
		t.Fatalf("last state %+v, want connected again", f.rec.last())
	}
}

func TestMessageNotStoredIsNotAcknowledgedAndComesAgain(t *testing.T) {
	srv := slacktest.NewServer(t)
	f := start(t, srv, nil)
	failed := false
	f.rec.store = func(m gateway.Inbound) error {
		if m.Text == "one" && !failed {
			failed = true
			return errors.New("database is locked")
		}
		return nil
	}
	f.connected(t)

	one := srv.DM("U1", "one")
	two := srv.DM("U1", "two")
	f.acked(t, two) // envelopes are handled in order: one is done with
	if srv.Acked(one.Envelopes[0]) {
		t.Fatal("a message the handler could not store was acknowledged")
	}
	srv.DropSocket()
	f.acked(t, one)
	msgs := f.rec.messages()
	if len(msgs) != 2 || msgs[0].Text != "two" || msgs[1].Text != "one" {
		t.Fatalf("stored %+v, want two, then one when Slack delivered it again", msgs)
	}
	if d := srv.Deliveries(one.Envelopes[0]); len(d) != 2 || d[1].RetryAttempt != 1 {
		t.Fatalf("deliveries of the failed message = %+v", d)
	}
}

func TestAcknowledgedMessageIsNotHandledAgainAfterADrop(t *testing.T) {
	srv := slacktest.NewServer(t)
	f := start(t, srv, nil)
	f.connected(t)
	one := srv.DM("U1", "one")
	f.acked(t, one)
	srv.DropSocket()
	waitFor(t, srv, f.rec, "a second socket", func() bool { return srv.Sockets() == 2 && f.rec.last().Connected })
	if !f.rec.sawState(false, "socket dropped") {
		t.Fatalf("states = %+v, want the drop reported", f.rec.stateLog())
	}
	two := srv.DM("U1", "two")
	f.acked(t, two)
	if d := srv.Deliveries(one.Envelopes[0]); len(d) != 1 {
		t.Fatalf("an acknowledged envelope was delivered %d times", len(d))
	}
	if got := f.rec.offered(); len(got) != 2 {
		t.Fatalf("handler offered %v, want one and two", got)
	}
}

func TestDisconnectRequestOpensANewSocketAtOnce(t *testing.T) {
	srv := slacktest.NewServer(t)
	// A backoff longer than the test: the new socket must not wait for it.
	f := start(t, srv, func(o *slack.Options) { o.Backoff, o.MaxBackoff = time.Hour, time.Hour })
	f.connected(t)
	if !srv.Disconnect("refresh_requested") {
		t.Fatal("no socket")
	}
	waitFor(t, srv, f.rec, "a new socket", func() bool { return srv.Sockets() == 2 && f.rec.last().Connected })
	if !f.rec.sawState(false, "Slack asked for a new connection (refresh_requested); reconnecting") {
		t.Fatalf("states = %+v", f.rec.stateLog())
	}
	p := srv.DM("U1", "after the refresh")
	f.acked(t, p)
	if got := f.handled(t, 1); got[0].Text != "after the refresh" {
		t.Fatalf("messages = %+v", got)
	}
	waitFor(t, srv, f.rec, "the old socket closed", func() bool { return srv.OpenSockets() == 1 })
}

func TestSilentSocketIsReplaced(t *testing.T) {
	srv := slacktest.NewServerWith(t, slacktest.Options{PingInterval: -1})
	f := start(t, srv, func(o *slack.Options) { o.PingTimeout = 50 * time.Millisecond })
	f.connected(t)
	waitFor(t, srv, f.rec, "the silent socket replaced", func() bool {
		return srv.Sockets() >= 2 && f.rec.sawState(false, "no ping or event from Slack for 50ms")
	})
}

func TestRefusedTokensEndRun(t *testing.T) {
	cases := []struct {
		name, bot, app, want string
	}{
		{"bot token", "xoxb-revoked", slacktest.AppToken, "auth.test refused the bot token: invalid_auth"},
		{"app token", slacktest.BotToken, "xapp-1-unknown", "apps.connections.open refused the app token: invalid_auth"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			srv := slacktest.NewServer(t)
			a, err := slack.New(slack.Options{BotToken: c.bot, AppToken: c.app, APIURL: srv.APIURL(), Backoff: time.Millisecond})
			if err != nil {
				t.Fatal(err)
			}
			rec := newRecorder()
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			err = a.Run(ctx, rec)
			if err == nil || !strings.Contains(err.Error(), "invalid_auth") {
				t.Fatalf("Run = %v, want the refusal", err)
			}
			if s := rec.last(); s.Connected || s.Detail != c.want {
				t.Fatalf("state = %+v, want not connected: %s", s, c.want)
			}
		})
	}
}

func TestTransientFailuresAreRetriedWithTheReason(t *testing.T) {
	srv := slacktest.NewServer(t)
	srv.Fail("auth.test", slacktest.Failure{Error: "internal_error"})
	srv.Fail("apps.connections.open", slacktest.Failure{Error: "internal_error"})
	f := start(t, srv, nil)
	f.connected(t)
	for _, want := range []string{"auth.test failed: internal_error; retrying in", "apps.connections.open failed: internal_error; reconnecting in"} {
		if !f.rec.sawState(false, want) {
			t.Errorf("states = %+v, want one saying %q", f.rec.stateLog(), want)
		}
	}
}

func TestRateLimitedConnectionWaitsRetryAfter(t *testing.T) {
	srv := slacktest.NewServer(t)
	srv.Fail("apps.connections.open", slacktest.Failure{RetryAfter: 30 * time.Second})
	f := start(t, srv, nil) // backoff of a millisecond
	waitFor(t, srv, f.rec, "the rate limit reported", func() bool {
		return f.rec.sawState(false, "apps.connections.open failed: slack rate limit exceeded, retry after 30s; reconnecting in 30s")
	})
	if n := len(srv.Calls("apps.connections.open")); n != 1 {
		t.Fatalf("apps.connections.open called %d times during the wait", n)
	}
}
