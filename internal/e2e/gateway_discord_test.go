package e2e

import (
	"net/http"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hermes-go/hermes/gateway/discord/discordtest"
)

func init() { registerChatPlatform("discord", startDiscordFake) }

// discordFake drives discordtest (the REST API and the gateway
// websocket) for the conformance suite.
type discordFake struct {
	srv    *discordtest.Server
	people map[person]discordtest.User
}

// discordTeam is the guild text channel the three people share with the
// bot.
const discordTeam = "1300000000000000001"

// discordSends are the bot's new messages in any channel; its edits are
// PATCHes of /channels/{id}/messages/{mid}.
const discordSends = "/channels/*/messages"

func startDiscordFake(t *testing.T) chatFake {
	srv := discordtest.NewServer(t)
	srv.AddChannel(discordtest.Channel{ID: discordTeam, GuildID: discordtest.Guild, Type: discordtest.GuildText, Name: "team"})
	return &discordFake{srv: srv, people: map[person]discordtest.User{
		alice:   {ID: "2000000000000000001", Username: "alice"},
		bob:     {ID: "2000000000000000002", Username: "bob"},
		mallory: {ID: "2000000000000000003", Username: "mallory"},
	}}
}

func (f *discordFake) env() []string {
	return []string{
		"DISCORD_BOT_TOKEN=" + f.srv.Token(), "DISCORD_API_URL=" + f.srv.URL(),
		"DISCORD_ADMIN_USERS=" + f.people[alice].ID, "DISCORD_ALLOWED_USERS=" + f.people[bob].ID,
	}
}

func (f *discordFake) dm(p person) chatRef { return chatRef(f.srv.DMChannel(f.people[p])) }
func (f *discordFake) group() chatRef      { return discordTeam }

func (f *discordFake) say(t *testing.T, p person, c chatRef, text string) any {
	if c == discordTeam {
		return f.srv.PushMention(string(c), f.people[p], text)
	}
	return f.srv.PushDM(f.people[p], text)
}

func (f *discordFake) redeliver(t *testing.T, m any) { f.srv.Redeliver(m.(discordtest.Message)) }

func (f *discordFake) messages(c chatRef) []botMessage {
	bot := f.srv.Bot().ID
	var out []botMessage
	for _, m := range f.srv.Messages(string(c)) {
		if m.Author.ID != bot {
			continue
		}
		b := botMessage{ID: m.ID, Text: m.Content, History: m.History}
		for _, row := range m.Buttons {
			for _, btn := range row {
				b.Buttons = append(b.Buttons, btn.Label)
			}
		}
		out = append(out, b)
	}
	return out
}

// press clicks a button; the bot must acknowledge the press with a
// deferred update (type 6) and answer with an ephemeral followup, the
// text returned.
func (f *discordFake) press(t *testing.T, p person, c chatRef, m botMessage, label string) string {
	t.Helper()
	msg, ok := f.srv.Message(m.ID)
	if !ok {
		t.Fatalf("no message %s in %s", m.ID, c)
	}
	customID := ""
	for _, row := range msg.Buttons {
		for _, btn := range row {
			if btn.Label == label {
				customID = btn.CustomID
			}
		}
	}
	if customID == "" {
		t.Fatalf("no button %q on message %s", label, m.ID)
	}
	click := f.srv.Click(m.ID, f.people[p], customID)
	var in discordtest.Interaction
	if !f.waitFor(gatewayWait, func() bool {
		in = f.interaction(click.ID)
		return len(in.Replies) > 0
	}) {
		t.Fatalf("the press of %q by %s was never answered: %+v", label, p, in)
	}
	if !slices.Equal(in.Callbacks, []int{6}) {
		t.Fatalf("the press of %q was acknowledged with responses %v, want one deferred update (6)", label, in.Callbacks)
	}
	if len(in.Replies) != 1 || !in.Replies[0].Ephemeral() {
		t.Fatalf("the press of %q was answered with %+v, want one ephemeral followup", label, in.Replies)
	}
	return in.Replies[0].Content
}

// interaction is a press or a slash command as the fake saw it and the
// bot answered it.
func (f *discordFake) interaction(id string) discordtest.Interaction {
	for _, in := range f.srv.Interactions() {
		if in.ID == id {
			return in
		}
	}
	return discordtest.Interaction{}
}

func (f *discordFake) holdSends()     { f.srv.Hold(http.MethodPost, discordSends) }
func (f *discordFake) releaseSends()  { f.srv.Release(http.MethodPost, discordSends) }
func (f *discordFake) heldSends() int { return f.srv.Held(http.MethodPost, discordSends) }

func (f *discordFake) rateLimitNextSend(seconds int) {
	fl := discordtest.RateLimit(time.Duration(seconds) * time.Second)
	fl.Enforce = true
	f.srv.Fail(http.MethodPost, discordSends, fl)
}

func (f *discordFake) earlyRetries() int { return f.srv.EarlyRetries() }

func (f *discordFake) replyCalls(c chatRef) []replyCall {
	messages := "/channels/" + string(c) + "/messages"
	var out []replyCall
	for _, r := range f.srv.Requests() {
		send := r.Method == http.MethodPost && r.Path == messages
		edit := r.Method == http.MethodPatch && strings.HasPrefix(r.Path, messages+"/")
		if send || edit {
			out = append(out, replyCall{At: r.At, Limited: r.Status == http.StatusTooManyRequests, OK: r.Status == http.StatusOK})
		}
	}
	return out
}

// disconnect cuts the socket without a close frame (the session stays
// resumable, as after a network failure) and keeps new sockets from
// opening until reconnect.
func (f *discordFake) disconnect(t *testing.T) {
	f.srv.HoldSockets()
	if !f.srv.Connected() {
		t.Fatal("no socket was open to drop")
	}
	f.srv.Drop()
}

func (f *discordFake) reconnect(t *testing.T) { f.srv.ReleaseSockets() }

func (f *discordFake) waitFor(timeout time.Duration, cond func() bool) bool {
	return f.srv.WaitFor(timeout, cond)
}

// newSession is the answer to /new: the session started, and the one
// before it.
var newSession = regexp.MustCompile(`^New session (\S+) \(the last one, (\S+), is kept`)

// A slash command from Discord's menu is a command like the typed one:
// the gateway registers its menu at start (with new and status among
// the commands), and /new used from the menu is echoed in the channel
// and answered as /new typed in a message is.
func TestGatewayDiscordSlashCommand(t *testing.T) {
	m := newScriptedModel(t)
	m.begin(t)
	f := startDiscordFake(t).(*discordFake)
	c := &gwCase{t: t, platform: "discord", fake: f, m: m, home: t.TempDir(), work: t.TempDir()}
	c.config()
	g := c.start()

	var names []string
	if !f.waitFor(gatewayWait, func() bool {
		names = nil
		for _, cmd := range f.srv.Commands() {
			names = append(names, cmd.Name)
		}
		return len(names) > 0
	}) {
		t.Fatal("the gateway registered no command menu")
	}
	for _, want := range []string{"new", "status"} {
		if !slices.Contains(names, want) {
			t.Fatalf("the command menu is %s, without %s", quoteAll(names), want)
		}
	}

	dm := f.dm(alice)
	f.say(t, alice, dm, "/new")
	typed := c.waitMessages(dm, "the answer to the typed /new", func(ms []botMessage) bool { return len(ms) == 1 })[0].Text

	slash := f.srv.SlashCommand(string(dm), f.people[alice], "new", "")
	msgs := c.waitMessages(dm, "the answer to /new from the menu", func(ms []botMessage) bool { return len(ms) == 3 })
	// Each answer names the session it started and the one it left: the
	// slash command left the session the typed one started.
	first, second := newSession.FindStringSubmatch(typed), newSession.FindStringSubmatch(msgs[2].Text)
	if first == nil || msgs[1].Text != "/new" || second == nil || second[2] != first[1] {
		t.Fatalf("the typed /new, then /new from the menu, were answered %s", shownTexts(msgs))
	}
	in := f.interaction(slash.ID)
	if !slices.Equal(in.Callbacks, []int{4}) || len(in.Replies) != 1 || in.Replies[0].Ephemeral() || in.Replies[0].ID != msgs[1].ID {
		t.Fatalf("the slash command was answered with responses %v and replies %+v, want its echo in the channel", in.Callbacks, in.Replies)
	}
	if reqs := m.requests(); len(reqs) != 0 {
		t.Fatalf("/new reached the model: %d requests", len(reqs))
	}
	if code := g.stop(t); code != 0 {
		t.Fatalf("exit %d after SIGTERM", code)
	}
}

func (f *discordFake) edits() bool { return true }
