package slacktest_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/slack-go/slack"

	"github.com/hermes-go/hermes/gateway/slack/slacktest"
)

func wait(t *testing.T, srv *slacktest.Server, what string, cond func() bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := srv.Wait(ctx, cond); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

// A held call waits unanswered until Release; one whose client gives up
// changes nothing.
func TestHeldCallsWaitForReleaseAndAbandonedOnesChangeNothing(t *testing.T) {
	srv := slacktest.NewServer(t)
	api := client(srv, slacktest.BotToken)
	srv.Hold("chat.postMessage")

	ctx, cancel := context.WithCancel(context.Background())
	abandoned := make(chan error, 1)
	go func() {
		_, _, err := api.PostMessageContext(ctx, "C1", slack.MsgOptionText("lost", false))
		abandoned <- err
	}()
	wait(t, srv, "the call held", func() bool { return srv.Held("chat.postMessage") == 1 })
	cancel()
	<-abandoned
	wait(t, srv, "the abandoned call let go", func() bool { return srv.Held("chat.postMessage") == 0 })

	kept := make(chan error, 1)
	go func() {
		_, _, err := api.PostMessageContext(context.Background(), "C1", slack.MsgOptionText("kept", false))
		kept <- err
	}()
	wait(t, srv, "the second call held", func() bool { return srv.Held("chat.postMessage") == 1 })
	srv.Release("chat.postMessage")
	if err := <-kept; err != nil {
		t.Fatalf("after the release: %v", err)
	}
	if msgs := srv.BotMessages("C1"); len(msgs) != 1 || msgs[0].Text != "kept" {
		t.Fatalf("messages %+v, want only the released one", msgs)
	}
	calls := srv.Calls("chat.postMessage")
	if len(calls) != 2 || calls[0].Error != "client went away" || calls[1].Error != "" {
		t.Fatalf("calls %+v", calls)
	}
}

// An enforced rate limit answers every post to its channel 429 until it
// passes, and counts those early retries; other channels go on.
func TestEnforcedRateLimitRefusesEarlyRetries(t *testing.T) {
	srv := slacktest.NewServer(t)
	api := client(srv, slacktest.BotToken)
	ctx := context.Background()
	srv.Fail("chat.postMessage", slacktest.Failure{RetryAfter: time.Hour, Enforce: true})
	var rl *slack.RateLimitedError
	if _, _, err := api.PostMessageContext(ctx, "C1", slack.MsgOptionText("a", false)); !errors.As(err, &rl) || srv.EarlyRetries() != 0 {
		t.Fatalf("the scripted 429: %v, early %d", err, srv.EarlyRetries())
	}
	if _, _, err := api.PostMessageContext(ctx, "C1", slack.MsgOptionText("b", false)); !errors.As(err, &rl) || rl.RetryAfter < 59*time.Minute {
		t.Fatalf("a retry during the wait: %v", err)
	}
	if n := srv.EarlyRetries(); n != 1 {
		t.Fatalf("%d early retries, want 1", n)
	}
	if _, _, err := api.PostMessageContext(ctx, "C2", slack.MsgOptionText("c", false)); err != nil {
		t.Fatalf("another channel: %v", err)
	}
}

// Redeliver sends the same event again in a new envelope marked a retry;
// History keeps what readers saw after each post and update.
func TestRedeliveryAndHistory(t *testing.T) {
	srv := slacktest.NewServer(t)
	conn := dial(t, srv)
	readFrame(t, conn) // hello
	p := srv.DM("U1", "hello")
	first := readFrame(t, conn)
	again, err := srv.Redeliver(p.Envelopes[0])
	if err != nil {
		t.Fatal(err)
	}
	f := readFrame(t, conn)
	if f.EnvelopeID != again || again == first.EnvelopeID || f.RetryAttempt != 1 || f.RetryReason != "timeout" || string(f.Payload) != string(first.Payload) {
		t.Fatalf("redelivery %+v of %+v", f, first)
	}

	api := client(srv, slacktest.BotToken)
	_, ts, err := api.PostMessageContext(context.Background(), "C1", slack.MsgOptionText("one", false))
	if err != nil {
		t.Fatal(err)
	}
	api.UpdateMessageContext(context.Background(), "C1", ts, slack.MsgOptionText("one two", false))
	if m, _ := srv.Message("C1", ts); len(m.History) != 2 || m.History[0] != "one" || m.History[1] != "one two" {
		t.Fatalf("history %q", m.History)
	}
}
