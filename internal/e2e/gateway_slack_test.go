package e2e

import (
	"context"
	"testing"
	"time"

	"github.com/hermes-go/hermes/gateway/slack/slacktest"
)

func init() { registerChatPlatform("slack", startSlackFake) }

// slackFake drives slacktest (Socket Mode) for the conformance suite.
type slackFake struct {
	srv *slacktest.Server
}

var slackIDs = map[person]string{alice: "U0ALICE", bob: "U0BOB", mallory: "U0MALLORY"}

const slackTeamChannel = "C0TEAM"

func startSlackFake(t *testing.T) chatFake {
	srv := slacktest.NewServerWith(t, slacktest.Options{PingInterval: -1})
	srv.AddUser(slackIDs[alice], "Alice")
	srv.AddUser(slackIDs[bob], "Bob")
	srv.AddUser(slackIDs[mallory], "Mallory")
	return &slackFake{srv: srv}
}

func (f *slackFake) env() []string {
	return []string{
		"SLACK_BOT_TOKEN=" + slacktest.BotToken, "SLACK_APP_TOKEN=" + slacktest.AppToken, "SLACK_API_URL=" + f.srv.APIURL(),
		"SLACK_ADMIN_USERS=" + slackIDs[alice], "SLACK_ALLOWED_USERS=" + slackIDs[bob],
	}
}

func (f *slackFake) dm(p person) chatRef { return chatRef("D" + slackIDs[p]) }
func (f *slackFake) group() chatRef      { return slackTeamChannel }

func (f *slackFake) say(t *testing.T, p person, c chatRef, text string) any {
	if c == slackTeamChannel {
		return f.srv.Mention(string(c), slackIDs[p], text)
	}
	return f.srv.DM(slackIDs[p], text)
}

func (f *slackFake) redeliver(t *testing.T, m any) {
	t.Helper()
	for _, env := range m.(slacktest.Posted).Envelopes {
		if _, err := f.srv.Redeliver(env); err != nil {
			t.Fatal(err)
		}
	}
}

func (f *slackFake) messages(c chatRef) []botMessage {
	var out []botMessage
	for _, m := range f.srv.BotMessages(string(c)) {
		b := botMessage{ID: m.TS, Text: m.Shown(), History: m.History}
		for _, row := range m.Buttons {
			for _, btn := range row {
				b.Buttons = append(b.Buttons, btn.Label)
			}
		}
		out = append(out, b)
	}
	return out
}

func (f *slackFake) press(t *testing.T, p person, c chatRef, m botMessage, label string) string {
	t.Helper()
	user := slackIDs[p]
	msg, ok := f.srv.Message(string(c), m.ID)
	if !ok {
		t.Fatalf("no message %s in %s", m.ID, c)
	}
	value := ""
	for _, row := range msg.Buttons {
		for _, btn := range row {
			if btn.Label == label {
				value = btn.Value
			}
		}
	}
	before := len(f.srv.Ephemerals(string(c), user))
	if _, err := f.srv.Click(string(c), m.ID, user, value); err != nil {
		t.Fatalf("clicking %q: %v", label, err)
	}
	var text string
	if !f.waitFor(gatewayWait, func() bool {
		eph := f.srv.Ephemerals(string(c), user)
		if len(eph) > before {
			text = eph[before].Text
			return true
		}
		return false
	}) {
		t.Fatalf("the click of %q by %s was never answered", label, p)
	}
	return text
}

func (f *slackFake) holdSends()     { f.srv.Hold("chat.postMessage") }
func (f *slackFake) releaseSends()  { f.srv.Release("chat.postMessage") }
func (f *slackFake) heldSends() int { return f.srv.Held("chat.postMessage") }

func (f *slackFake) rateLimitNextSend(seconds int) {
	f.srv.Fail("chat.postMessage", slacktest.Failure{RetryAfter: time.Duration(seconds) * time.Second, Enforce: true})
}

func (f *slackFake) earlyRetries() int { return f.srv.EarlyRetries() }

func (f *slackFake) replyCalls(c chatRef) []replyCall {
	var out []replyCall
	for _, call := range f.srv.Calls("") {
		if (call.Method == "chat.postMessage" || call.Method == "chat.update") && call.Params.Get("channel") == string(c) {
			out = append(out, replyCall{At: call.Time, Limited: call.Error == "http 429", OK: call.Error == ""})
		}
	}
	return out
}

// disconnect drops the socket without a close frame and holds the
// request for a new one until reconnect.
func (f *slackFake) disconnect(t *testing.T) {
	f.srv.Hold("apps.connections.open")
	if !f.srv.DropSocket() {
		t.Fatal("no socket was open to drop")
	}
}

func (f *slackFake) reconnect(t *testing.T) { f.srv.Release("apps.connections.open") }

func (f *slackFake) waitFor(timeout time.Duration, cond func() bool) bool {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	return f.srv.Wait(ctx, cond) == nil
}

func (f *slackFake) edits() bool { return true }
