package slack_test

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"testing"
	"time"

	"github.com/hermes-go/hermes/gateway"
	"github.com/hermes-go/hermes/gateway/slack"
	"github.com/hermes-go/hermes/gateway/slack/slacktest"
)

const secret = "8f742231b10e8888abcd99yyyzzz85a5"

// startEvents runs an adapter in Events API mode on a free port and points
// the fake's event delivery at it; it returns the events URL.
func startEvents(t *testing.T, srv *slacktest.Server) (*fixture, string) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	base := "http://" + ln.Addr().String()
	f := start(t, srv, func(o *slack.Options) {
		o.Mode, o.AppToken, o.SigningSecret, o.EventsListener = slack.ModeEvents, "", secret, ln
	})
	srv.UseEventsAPI(base+slack.EventsPath, base+slack.InteractivePath, secret)
	f.connected(t)
	return f, base + slack.EventsPath
}

func TestEventsAPISignedEventsAreHandled(t *testing.T) {
	srv := slacktest.NewServer(t)
	f, url := startEvents(t, srv)
	if s := f.rec.last(); s.Detail != "@hermes in Hermes Test, Events API on "+url[:len(url)-len(slack.EventsPath)]+slack.EventsPath {
		t.Fatalf("state = %+v", s)
	}

	dm := srv.DM("U1", "hello")
	mention := srv.Mention("C1", "U2", "status?")
	if len(dm.Statuses) != 1 || dm.Statuses[0] != 200 || len(mention.Statuses) != 2 || mention.Statuses[0] != 200 || mention.Statuses[1] != 200 {
		t.Fatalf("statuses: dm %v, mention %v; want 200 for each event", dm.Statuses, mention.Statuses)
	}
	// Each POST is answered once its event is handled: no waiting needed.
	msgs := f.rec.messages()
	if len(msgs) != 2 {
		t.Fatalf("messages = %+v, want the DM and the mention once", msgs)
	}
	if msgs[0].ChatType != gateway.DM || msgs[0].Text != "hello" || msgs[1].Text != "status?" || !msgs[1].Addressed {
		t.Fatalf("messages = %+v", msgs)
	}
	if n := len(srv.Calls("apps.connections.open")); n != 0 {
		t.Fatalf("Events API mode opened %d sockets", n)
	}
}

func TestEventsAPIRefusesUnsignedRequests(t *testing.T) {
	srv := slacktest.NewServer(t)
	f, url := startEvents(t, srv)
	ctx := context.Background()
	body, _ := json.Marshal(map[string]any{
		"type": "event_callback", "team_id": slacktest.TeamID, "event_id": "Ev1",
		"event": map[string]any{"type": "message", "channel": "DU1", "channel_type": "im", "user": "U1", "text": "forged", "ts": "1700000001.000100"},
	})
	cases := []struct {
		name   string
		secret string
		at     time.Time
	}{
		{"wrong secret", "not-the-secret", time.Now()},
		{"stale timestamp", secret, time.Now().Add(-6 * time.Minute)},
		{"future timestamp", secret, time.Now().Add(6 * time.Minute)},
	}
	for _, c := range cases {
		status, _, err := slacktest.PostSigned(ctx, url, c.secret, c.at, body)
		if err != nil {
			t.Fatal(err)
		}
		if status != 401 {
			t.Errorf("%s: status %d, want 401", c.name, status)
		}
	}
	// The same body, properly signed, goes through: only the signature
	// stopped the others.
	if status, _, _ := slacktest.PostSigned(ctx, url, secret, time.Now(), body); status != 200 {
		t.Fatalf("signed: status %d", status)
	}
	if msgs := f.rec.messages(); len(msgs) != 1 || msgs[0].Text != "forged" {
		t.Fatalf("messages = %+v, want only the signed one", msgs)
	}
}

func TestEventsAPIAnswersURLVerification(t *testing.T) {
	srv := slacktest.NewServer(t)
	_, url := startEvents(t, srv)
	status, reply, err := slacktest.PostSigned(context.Background(), url, secret, time.Now(), slacktest.URLVerification("3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P"))
	if err != nil || status != 200 {
		t.Fatalf("status %d, %v", status, err)
	}
	var got struct{ Challenge string }
	if err := json.Unmarshal(reply, &got); err != nil || got.Challenge != "3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P" {
		t.Fatalf("reply %s, want the challenge", reply)
	}
}

func TestEventsAPIMessageNotStoredIsAnswered500(t *testing.T) {
	srv := slacktest.NewServer(t)
	f, _ := startEvents(t, srv)
	f.rec.store = func(gateway.Inbound) error { return errors.New("disk full") }
	if p := srv.DM("U1", "hello"); p.Statuses[0] != 500 {
		t.Fatalf("status %v, want 500 so that Slack retries", p.Statuses)
	}
	if n := len(f.rec.messages()); n != 0 {
		t.Fatalf("%d messages stored", n)
	}
}

func TestEventsAPIClickWithAnswer(t *testing.T) {
	srv := slacktest.NewServer(t)
	f, _ := startEvents(t, srv)
	card, err := f.a.Send(context.Background(), gateway.Outbound{Chat: gateway.ChatRef{ChatID: "C1"}, Text: "pick",
		Buttons: [][]gateway.Button{{{Label: "Yes", Data: "yes"}, {Label: "No", Data: "no"}}}})
	if err != nil {
		t.Fatal(err)
	}
	p, err := srv.Click("C1", card.MessageID, "U1", "no")
	if err != nil {
		t.Fatal(err)
	}
	if p.Statuses[0] != 200 {
		t.Fatalf("interaction status %v", p.Statuses)
	}
	clicks := f.rec.clicked()
	if len(clicks) != 1 || clicks[0].Data != "no" || clicks[0].UserID != "U1" || clicks[0].MessageID != card.MessageID {
		t.Fatalf("clicks = %+v", clicks)
	}
	if err := clicks[0].Answer(context.Background(), "Noted."); err != nil {
		t.Fatal(err)
	}
	if e := srv.Ephemerals("C1", "U1"); len(e) != 1 || e[0].Text != "Noted." {
		t.Fatalf("ephemerals = %+v", e)
	}
}

func TestEventsAPIUnsignedClickIsRefused(t *testing.T) {
	srv := slacktest.NewServer(t)
	f, url := startEvents(t, srv)
	interactive := url[:len(url)-len(slack.EventsPath)] + slack.InteractivePath
	form := []byte(`payload=` + `{"type":"block_actions","user":{"id":"U1"},"channel":{"id":"C1"},"container":{"message_ts":"1.2"},"actions":[{"type":"button","value":"yes"}]}`)
	status, _, err := slacktest.PostSigned(context.Background(), interactive, "wrong", time.Now(), form)
	if err != nil || status != 401 {
		t.Fatalf("status %d, %v; want 401", status, err)
	}
	if c := f.rec.clicked(); len(c) != 0 {
		t.Fatalf("clicks = %+v", c)
	}
}

func TestNewChecksOptions(t *testing.T) {
	cases := []struct {
		name string
		o    slack.Options
	}{
		{"no bot token", slack.Options{AppToken: "xapp-1"}},
		{"socket mode without app token", slack.Options{BotToken: "xoxb-1"}},
		{"bot token as app token", slack.Options{BotToken: "xoxb-1", AppToken: "xoxb-1"}},
		{"events without signing secret", slack.Options{BotToken: "xoxb-1", Mode: slack.ModeEvents}},
		{"unknown mode", slack.Options{BotToken: "xoxb-1", AppToken: "xapp-1", Mode: "rtm"}},
	}
	for _, c := range cases {
		if _, err := slack.New(c.o); err == nil {
			t.Errorf("%s: New accepted %+v", c.name, c.o)
		}
	}
	if _, err := slack.New(slack.Options{BotToken: "xoxb-1", Mode: slack.ModeEvents, SigningSecret: "s"}); err != nil {
		t.Errorf("events mode: %v", err)
	}
}
