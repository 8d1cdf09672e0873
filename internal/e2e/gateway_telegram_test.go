package e2e

import (
	"fmt"
	"strconv"
	"testing"
	"time"

	"github.com/hermes-go/hermes/gateway/telegram/telegramtest"
	"github.com/hermes-go/hermes/llm/llmtest"
)

func init() { registerChatPlatform("telegram", startTelegramFake) }

// telegramFake drives telegramtest for the conformance suite.
type telegramFake struct {
	srv    *telegramtest.Server
	people map[person]telegramtest.User
	chats  map[chatRef]telegramtest.Chat
	team   telegramtest.Chat
}

func startTelegramFake(t *testing.T) chatFake {
	f := &telegramFake{srv: telegramtest.NewServer(t, telegramtest.Options{}), chats: map[chatRef]telegramtest.Chat{}}
	f.people = map[person]telegramtest.User{
		alice:   {ID: 1001, FirstName: "Alice", Username: "alice"},
		bob:     {ID: 1002, FirstName: "Bob", Username: "bob"},
		mallory: {ID: 1003, FirstName: "Mallory", Username: "mallory"},
	}
	f.team = f.srv.Group("Team")
	f.chats[f.ref(f.team)] = f.team
	return f
}

func (f *telegramFake) ref(c telegramtest.Chat) chatRef { return chatRef(strconv.FormatInt(c.ID, 10)) }

func (f *telegramFake) env() []string {
	return []string{
		"TELEGRAM_BOT_TOKEN=" + f.srv.Token(), "TELEGRAM_API_URL=" + f.srv.URL(),
		fmt.Sprintf("TELEGRAM_ADMIN_USERS=%d", f.people[alice].ID),
		fmt.Sprintf("TELEGRAM_ALLOWED_USERS=%d", f.people[bob].ID),
	}
}

func (f *telegramFake) dm(p person) chatRef {
	c := f.srv.DM(f.people[p])
	f.chats[f.ref(c)] = c
	return f.ref(c)
}

func (f *telegramFake) group() chatRef { return f.ref(f.team) }

func (f *telegramFake) say(t *testing.T, p person, c chatRef, text string) any {
	chat := f.chats[c]
	if chat.Type != "private" {
		text = "@" + f.srv.Bot().Username + " " + text
	}
	return f.srv.SendText(f.people[p], chat, text)
}

func (f *telegramFake) redeliver(t *testing.T, m any) { f.srv.Redeliver(m.(telegramtest.Message)) }

func (f *telegramFake) messages(c chatRef) []botMessage {
	var out []botMessage
	for _, m := range f.srv.BotMessages(f.chats[c]) {
		b := botMessage{ID: strconv.Itoa(m.ID), Text: m.Text, History: m.History}
		for _, row := range m.Buttons {
			for _, btn := range row {
				b.Buttons = append(b.Buttons, btn.Text)
			}
		}
		out = append(out, b)
	}
	return out
}

func (f *telegramFake) press(t *testing.T, p person, c chatRef, m botMessage, label string) string {
	t.Helper()
	id, _ := strconv.Atoi(m.ID)
	data := ""
	for _, msg := range f.srv.BotMessages(f.chats[c]) {
		if msg.ID != id {
			continue
		}
		for _, row := range msg.Buttons {
			for _, btn := range row {
				if btn.Text == label {
					data = btn.Data
				}
			}
		}
	}
	query, err := f.srv.Press(f.people[p], f.chats[c], id, data)
	if err != nil {
		t.Fatalf("pressing %q: %v", label, err)
	}
	var text string
	if !f.srv.WaitFor(gatewayWait, func() bool {
		var answered bool
		text, answered = f.srv.Answer(query)
		return answered
	}) {
		t.Fatalf("the press of %q by %s was never answered", label, p)
	}
	return text
}

func (f *telegramFake) holdSends()     { f.srv.Hold("sendMessage") }
func (f *telegramFake) releaseSends()  { f.srv.Release("sendMessage") }
func (f *telegramFake) heldSends() int { return f.srv.Held("sendMessage") }

func (f *telegramFake) rateLimitNextSend(seconds int) {
	f.srv.Fail("sendMessage", telegramtest.RetryAfter(seconds))
}

func (f *telegramFake) earlyRetries() int { return f.srv.EarlyRetries() }

func (f *telegramFake) replyCalls(c chatRef) []replyCall {
	var out []replyCall
	for _, call := range f.srv.Calls("sendMessage", "editMessageText") {
		if call.Params["chat_id"] == string(c) {
			out = append(out, replyCall{At: call.Time, Limited: call.Status == 429, OK: call.Status == 200})
		}
	}
	return out
}

// disconnect hangs up on the held poll and on every request after it,
// as a network that went away.
func (f *telegramFake) disconnect(t *testing.T) {
	f.srv.SetDown(true)
	f.srv.DropPolls()
}

func (f *telegramFake) reconnect(t *testing.T) { f.srv.SetDown(false) }

func (f *telegramFake) waitFor(timeout time.Duration, cond func() bool) bool {
	return f.srv.WaitFor(timeout, cond)
}

// A second process polling with the bot's token (Telegram answers 409
// Conflict) shows in `hermes gateway status --json` as not connected,
// with the reason, never as connected while nothing arrives.
func TestGatewayTelegramConflictShowsInStatus(t *testing.T) {
	m := newScriptedModel(t)
	m.begin(t)
	f := startTelegramFake(t).(*telegramFake)
	c := &gwCase{t: t, platform: "telegram", fake: f, m: m, home: t.TempDir(), work: t.TempDir()}
	c.config()
	g := c.start()
	f.srv.StartConflict()
	g.waitLog(t, disconnectedLine("telegram"), 1)
	st, r := gatewayStatusJSON(t, f.env(), c.home)
	ps := platformsOf(st)
	if r.code != 1 || st["running"] != true || len(ps) != 1 || ps[0]["connected"] != false ||
		ps[0]["detail"] != "409 conflict: another getUpdates is running with this token" {
		t.Fatalf("during the conflict: exit %d %v", r.code, st)
	}
	// It keeps polling, and once the other poller stops, the next
	// message is answered and the platform is connected again (an empty
	// answer right after a conflict proves nothing: the other poller may
	// just be between two polls).
	f.srv.EndConflict()
	m.reply(llmtest.Reply{Text: "back"})
	dm := f.dm(alice)
	f.say(t, alice, dm, "are you there?")
	c.waitLast(dm, "back")
	g.waitLog(t, connectedLine("telegram"), 2)
	st, r = gatewayStatusJSON(t, f.env(), c.home)
	if ps := platformsOf(st); r.code != 0 || ps[0]["connected"] != true {
		t.Fatalf("after the conflict: exit %d %v", r.code, st)
	}
}

// One gateway serves a HERMES_HOME: a second one started on the same
// home is refused with the first's pid, and the first goes on serving.
func TestGatewayIsOnePerHome(t *testing.T) {
	m := newScriptedModel(t)
	m.begin(t)
	f := startTelegramFake(t).(*telegramFake)
	c := &gwCase{t: t, platform: "telegram", fake: f, m: m, home: t.TempDir(), work: t.TempDir()}
	c.config()
	g := c.start()
	r := hermesRun(t, f.env(), "", c.home, c.work, "gateway", "--provider", "custom", "--base-url", m.srv.URL(), "--api-key", "x", "--model", "m")
	if r.code == 0 || !contains(r.stderr, "another hermes gateway (pid "+strconv.Itoa(g.cmd.Process.Pid)+") is running") {
		t.Fatalf("a second gateway on the same home: exit %d, stderr %q", r.code, r.stderr)
	}
	m.reply(llmtest.Reply{Text: "still here"})
	dm := f.dm(alice)
	f.say(t, alice, dm, "hello?")
	c.waitLast(dm, "still here")
}

func (f *telegramFake) edits() bool { return true }
