package e2e

import (
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hermes-go/hermes/gateway/matrix/matrixtest"
	"github.com/hermes-go/hermes/llm/llmtest"
)

func init() { registerChatPlatform("matrix", startMatrixFake) }

// matrixFake drives matrixtest (a fake homeserver) for the conformance
// suite. The bot's messages are its m.text events; a press is a
// reaction with the button's key, and what only the presser is answered
// is the bot's notice (m.notice) that replies to the card and mentions
// them: Matrix has no message one member alone reads.
type matrixFake struct {
	srv    *matrixtest.Server
	people map[person]matrixtest.User
	team   string
}

func startMatrixFake(t *testing.T) chatFake {
	srv := matrixtest.NewServer(t)
	f := &matrixFake{srv: srv, people: map[person]matrixtest.User{
		alice:   {ID: "@alice:test", Name: "Alice"},
		bob:     {ID: "@bob:test", Name: "Bob"},
		mallory: {ID: "@mallory:test", Name: "Mallory"},
	}}
	f.team = srv.AddRoom(f.people[alice], f.people[bob], f.people[mallory])
	return f
}

func (f *matrixFake) env() []string {
	return []string{
		"MATRIX_HOMESERVER=" + f.srv.URL(), "MATRIX_ACCESS_TOKEN=" + f.srv.Token(),
		"MATRIX_ADMIN_USERS=" + f.people[alice].ID, "MATRIX_ALLOWED_USERS=" + f.people[bob].ID,
	}
}

func (f *matrixFake) dm(p person) chatRef { return chatRef(f.srv.DM(f.people[p])) }
func (f *matrixFake) group() chatRef      { return chatRef(f.team) }

// say posts p's message; in the group it mentions the bot as clients
// do, by display name before the text and in m.mentions.
func (f *matrixFake) say(t *testing.T, p person, c chatRef, text string) any {
	if string(c) == f.team {
		bot := f.srv.Bot()
		return f.srv.Post(f.people[p], f.team, "m.room.message", map[string]any{
			"msgtype": "m.text", "body": bot.Name + ": " + text,
			"m.mentions": map[string]any{"user_ids": []string{bot.ID}},
		})
	}
	return f.srv.Say(f.people[p], string(c), text)
}

// cardKeys are the reaction keys a card names, in quotes.
var cardKeys = regexp.MustCompile(`“([^”]+)”`)

func (f *matrixFake) redeliver(t *testing.T, m any) { f.srv.Redeliver(m.(matrixtest.Event)) }

func (f *matrixFake) messages(c chatRef) []botMessage {
	var out []botMessage
	for _, m := range f.srv.Messages(string(c)) {
		if m.Sender != f.srv.Bot().ID || m.MsgType != "m.text" {
			continue
		}
		b := botMessage{ID: m.ID, Text: m.Body, History: m.History}
		var reacted []string
		for _, r := range m.Reactions {
			if r.Sender == f.srv.Bot().ID {
				reacted = append(reacted, r.Key)
			}
		}
		// A card names its reactions under its text, and the bot adds
		// them one by one after sending it: its buttons are there once
		// every reaction it names is. Without that line, the buttons are
		// whatever reactions of the bot's are left.
		text, hint, isCard := strings.Cut(b.Text, "\n\nReact with ")
		b.Buttons = reacted
		if isCard {
			b.Text, b.Buttons = text, nil
			keys := cardKeys.FindAllStringSubmatch(hint, -1)
			var named []string
			for _, k := range keys {
				named = append(named, k[1])
			}
			if len(named) > 0 && slices.Equal(named, reacted) {
				b.Buttons = named
			}
		}
		out = append(out, b)
	}
	return out
}

// press reacts to the card with the button's key as p, and returns the
// notice that answers it.
func (f *matrixFake) press(t *testing.T, p person, c chatRef, m botMessage, label string) string {
	t.Helper()
	if !slices.Contains(m.Buttons, label) {
		t.Fatalf("no button %q on message %s: %q", label, m.ID, m.Buttons)
	}
	who := f.people[p].ID
	before := len(f.answers(c, m.ID, who))
	f.srv.React(f.people[p], string(c), m.ID, label)
	var answers []string
	if !f.waitFor(gatewayWait, func() bool {
		answers = f.answers(c, m.ID, who)
		return len(answers) > before
	}) {
		t.Fatalf("the press of %q by %s was never answered", label, p)
	}
	return strings.TrimPrefix(answers[before], who+": ")
}

// answers are the bot's notices in c replying to the card and
// mentioning who.
func (f *matrixFake) answers(c chatRef, card, who string) []string {
	var out []string
	for _, m := range f.srv.Messages(string(c)) {
		if m.Sender != f.srv.Bot().ID || m.MsgType != "m.notice" {
			continue
		}
		rel, _ := m.Content["m.relates_to"].(map[string]any)
		reply, _ := rel["m.in_reply_to"].(map[string]any)
		mentions, _ := m.Content["m.mentions"].(map[string]any)
		ids, _ := mentions["user_ids"].([]any)
		if reply["event_id"] == card && slices.Contains(ids, any(who)) {
			out = append(out, m.Body)
		}
	}
	return out
}

func (f *matrixFake) holdSends()     { f.srv.Hold() }
func (f *matrixFake) releaseSends()  { f.srv.Release() }
func (f *matrixFake) heldSends() int { return f.srv.Held() }

func (f *matrixFake) rateLimitNextSend(seconds int) {
	f.srv.RateLimitNextSend(time.Duration(seconds) * time.Second)
}

func (f *matrixFake) earlyRetries() int { return f.srv.EarlyRetries() }

func (f *matrixFake) replyCalls(c chatRef) []replyCall {
	var out []replyCall
	for _, r := range f.srv.Requests() {
		if r.Room == string(c) && (r.Kind == "send" || r.Kind == "edit") {
			out = append(out, replyCall{At: r.At, Limited: r.Status == 429, OK: r.Status == 200})
		}
	}
	return out
}

// disconnect hangs up on the open /sync and on every request after it,
// as a network that went away. The bot syncs again as soon as a sync
// brings it anything (its own reply too): the next long poll is awaited.
func (f *matrixFake) disconnect(t *testing.T) {
	if !f.waitFor(gatewayWait, f.srv.Syncing) {
		t.Fatal("no sync was open to drop")
	}
	f.srv.SetDown(true)
}

func (f *matrixFake) reconnect(t *testing.T) { f.srv.SetDown(false) }

func (f *matrixFake) waitFor(timeout time.Duration, cond func() bool) bool {
	return f.srv.WaitFor(timeout, cond)
}

func (f *matrixFake) edits() bool { return true }

// The bot joins a room an allowed user invites it to and answers there,
// and never joins a stranger's invite. A room with end-to-end encryption
// gets one notice that it is not supported, and the gateway's log says
// so; nothing written there reaches the model.
func TestGatewayMatrixInvitesAndEncryptedRooms(t *testing.T) {
	m := newScriptedModel(t)
	m.begin(t)
	f := startMatrixFake(t).(*matrixFake)
	c := &gwCase{t: t, platform: "matrix", fake: f, m: m, home: t.TempDir(), work: t.TempDir()}
	c.config()
	g := c.start()

	strangers := f.srv.Invite(f.people[mallory])
	room := f.srv.Invite(f.people[bob])
	if !f.waitFor(gatewayWait, func() bool { return f.srv.Joined(room) }) {
		t.Fatal("bob's invite was not joined")
	}
	m.reply(llmtest.Reply{Text: "glad to be here"})
	f.srv.Say(f.people[bob], room, "welcome!") // a room of two: a DM
	c.waitLast(chatRef(room), "glad to be here")
	g.waitLog(t, "matrix invite left unanswered", 1)
	if f.srv.Joined(strangers) {
		t.Fatal("a stranger's invite was joined")
	}

	f.srv.Encrypt(f.people[alice], f.team)
	f.srv.Post(f.people[alice], f.team, "m.room.encrypted", map[string]any{"algorithm": "m.megolm.v1.aes-sha2", "ciphertext": "x"})
	g.waitLog(t, "matrix room is end-to-end encrypted", 1)
	var notices []string
	if !f.waitFor(gatewayWait, func() bool {
		notices = nil
		for _, msg := range f.srv.Messages(f.team) {
			if msg.Sender == f.srv.Bot().ID && msg.MsgType == "m.notice" {
				notices = append(notices, msg.Body)
			}
		}
		return len(notices) > 0
	}) {
		t.Fatal("the encrypted room got no notice")
	}
	f.srv.Say(f.people[alice], f.team, "Hermes: can you read this?")
	m.reply(llmtest.Reply{Text: "still here"})
	f.srv.Say(f.people[bob], room, "and now?")
	c.waitLast(chatRef(room), "still here")
	if len(notices) != 1 || !strings.Contains(notices[0], "end-to-end encrypted") || len(f.messages(f.group())) != 0 {
		t.Fatalf("the encrypted room got %q and %s", notices, shownTexts(f.messages(f.group())))
	}
	if got := lastUserTexts(m.requests()); strings.Join(got, "|") != "welcome!|and now?" {
		t.Fatalf("the model read %q", got)
	}
}
