package e2e

import (
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hermes-go/hermes/gateway/signal"
	"github.com/hermes-go/hermes/gateway/signal/signaltest"
)

func init() { registerChatPlatform("signal", startSignalFake) }

// signalFake drives signaltest (a signal-cli daemon's HTTP interface)
// for the conformance suite.
type signalFake struct {
	srv    *signaltest.Server
	people map[person]signaltest.Person
	chats  map[chatRef]signaltest.Chat
	team   signaltest.Chat
}

func startSignalFake(t *testing.T) chatFake {
	f := &signalFake{srv: signaltest.NewServer(t, signaltest.Options{}), chats: map[chatRef]signaltest.Chat{}}
	f.people = map[person]signaltest.Person{
		alice:   {Number: "+15550000001", UUID: "a1111111-1111-4111-8111-111111111111", Name: "Alice"},
		bob:     {Number: "+15550000002", UUID: "b2222222-2222-4222-8222-222222222222", Name: "Bob"},
		mallory: {Number: "+15550000003", UUID: "c3333333-3333-4333-8333-333333333333", Name: "Mallory"},
	}
	f.team = signaltest.Group("team")
	f.chats[chatRef(f.team.Ref())] = f.team
	return f
}

func (f *signalFake) env() []string {
	return []string{
		"SIGNAL_HTTP_URL=" + f.srv.URL(), "SIGNAL_ACCOUNT=" + f.srv.Account(),
		"SIGNAL_ADMIN_USERS=" + f.people[alice].Number, "SIGNAL_ALLOWED_USERS=" + f.people[bob].Number,
	}
}

func (f *signalFake) dm(p person) chatRef {
	c := signaltest.DM(f.people[p])
	f.chats[chatRef(c.Ref())] = c
	return chatRef(c.Ref())
}

func (f *signalFake) group() chatRef { return chatRef(f.team.Ref()) }

func (f *signalFake) say(t *testing.T, p person, c chatRef, text string) any {
	chat := f.chats[c]
	if chat.GroupID != "" {
		return f.srv.Mention(f.people[p], chat, text)
	}
	return f.srv.Say(f.people[p], chat, text)
}

func (f *signalFake) redeliver(t *testing.T, m any) { f.srv.Redeliver(m.(signaltest.Message)) }

func (f *signalFake) messages(c chatRef) []botMessage {
	var out []botMessage
	for _, m := range f.srv.BotMessages(string(c)) {
		b := botMessage{ID: strconv.FormatInt(m.Timestamp, 10), Text: m.Text, History: m.History}
		for _, btn := range signalButtons(m.Text) {
			b.Buttons = append(b.Buttons, btn[1])
		}
		out = append(out, b)
	}
	return out
}

// signalButtons reads the buttons listed under a message: [emoji, label]
// pairs after the header line.
func signalButtons(text string) [][2]string {
	_, list, ok := strings.Cut(text, "\n"+signal.ButtonsHeader+"\n")
	if !ok {
		return nil
	}
	var out [][2]string
	for _, line := range strings.Split(list, "\n") {
		emoji, label, ok := strings.Cut(line, " ")
		if !ok {
			break
		}
		out = append(out, [2]string{emoji, label})
	}
	return out
}

// press reacts to the message with the emoji listed before label; the
// answer comes to the person alone, as a direct message.
func (f *signalFake) press(t *testing.T, p person, c chatRef, m botMessage, label string) string {
	t.Helper()
	emoji := ""
	for _, btn := range signalButtons(m.Text) {
		if btn[1] == label {
			emoji = btn[0]
		}
	}
	if emoji == "" {
		t.Fatalf("no button %q on message %s: %q", label, m.ID, m.Text)
	}
	ts, _ := strconv.ParseInt(m.ID, 10, 64)
	own := f.dm(p)
	before := len(f.srv.BotMessages(string(own)))
	f.srv.React(f.people[p], f.chats[c], ts, emoji)
	var answers []signaltest.BotMessage
	if !f.srv.WaitFor(gatewayWait, func() bool {
		answers = f.srv.BotMessages(string(own))
		return len(answers) > before
	}) {
		t.Fatalf("the press of %q by %s was never answered", label, p)
	}
	return answers[before].Text
}

func (f *signalFake) holdSends()     { f.srv.HoldSends() }
func (f *signalFake) releaseSends()  { f.srv.ReleaseSends() }
func (f *signalFake) heldSends() int { return f.srv.HeldSends() }

func (f *signalFake) rateLimitNextSend(seconds int) {
	f.srv.FailNextSend(signaltest.RateLimit(seconds))
}

func (f *signalFake) earlyRetries() int { return f.srv.EarlyRetries() }

func (f *signalFake) replyCalls(c chatRef) []replyCall {
	var out []replyCall
	for _, call := range f.srv.Calls("send") {
		if call.Chat == string(c) {
			out = append(out, replyCall{At: call.Time, Limited: call.Code == signaltest.CodeRateLimit, OK: call.Code == 0})
		}
	}
	return out
}

// disconnect drops the event stream and refuses new ones; what people
// write meanwhile waits in the daemon.
func (f *signalFake) disconnect(t *testing.T) {
	if f.srv.Streams() == 0 {
		t.Fatal("no event stream was open to drop")
	}
	f.srv.Disconnect()
}

func (f *signalFake) reconnect(t *testing.T) { f.srv.Reconnect() }

func (f *signalFake) waitFor(timeout time.Duration, cond func() bool) bool {
	return f.srv.WaitFor(timeout, cond)
}

func (f *signalFake) edits() bool { return true }

// hermes gateway setup signal writes the account and the daemon's
// address (nothing secret, so nothing to .env), and the gateway then
// counts Signal among its platforms.
func TestGatewaySetupSignal(t *testing.T) {
	home := t.TempDir()
	r := hermes(t, home, home, "gateway", "setup", "signal", "--non-interactive", "--token", "+15550000000", "--allowed-users", "+15550000002, b2222222-2222-4222-8222-222222222222")
	if r.code != 0 {
		t.Fatalf("setup: exit %d stderr %q", r.code, r.stderr)
	}
	want := `gateway:
  platforms:
    signal:
      enabled: true
      account: "+15550000000"
      http_url: http://127.0.0.1:8080
      allowed_users: ["+15550000002", b2222222-2222-4222-8222-222222222222]
      admin_users: []
`
	if got := readFile(t, filepath.Join(home, "config.yaml")); got != want {
		t.Fatalf("config.yaml:\n%s\nwant:\n%s", got, want)
	}
	m, r := gatewayStatusJSON(t, nil, home)
	ps := platformsOf(m)
	if r.code != 1 || len(ps) != 1 || ps[0]["platform"] != "signal" || ps[0]["detail"] != "gateway not running" {
		t.Fatalf("status after setup: exit %d %v stderr %q", r.code, m, r.stderr)
	}
	r = hermes(t, home, home, "gateway", "setup", "signal", "--non-interactive", "--token", "alice")
	if r.code != 2 || !strings.Contains(r.stderr, "a Signal number such as +15551234567") {
		t.Fatalf("a name for a number: exit %d stderr %q", r.code, r.stderr)
	}
}
