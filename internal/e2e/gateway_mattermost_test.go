package e2e

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hermes-go/hermes/gateway/mattermost/mattermosttest"
)

func init() { registerChatPlatform("mattermost", startMattermostFake) }

// mattermostFake drives mattermosttest for the conformance suite.
type mattermostFake struct {
	srv *mattermosttest.Server
}

var mattermostIDs = map[person]string{
	alice:   "alice000000000000000000000",
	bob:     "bob00000000000000000000000",
	mallory: "mallory0000000000000000000",
}

const mattermostTeamChannel = "townsquare0000000000000000"

func startMattermostFake(t *testing.T) chatFake {
	srv := mattermosttest.NewServer(t)
	for p, id := range mattermostIDs {
		srv.AddUser(id, string(p))
		srv.AddChannel(mattermostDM(p), "D")
	}
	srv.AddChannel(mattermostTeamChannel, "O")
	return &mattermostFake{srv: srv}
}

// mattermostDM is the direct channel of p and the bot.
func mattermostDM(p person) string { return "dm" + mattermostIDs[p][:24] }

func (f *mattermostFake) env() []string {
	return []string{
		"MATTERMOST_URL=" + f.srv.URL(), "MATTERMOST_TOKEN=" + mattermosttest.Token,
		"MATTERMOST_ADMIN_USERS=" + mattermostIDs[alice], "MATTERMOST_ALLOWED_USERS=" + mattermostIDs[bob],
	}
}

func (f *mattermostFake) dm(p person) chatRef { return chatRef(mattermostDM(p)) }
func (f *mattermostFake) group() chatRef      { return mattermostTeamChannel }

func (f *mattermostFake) say(t *testing.T, p person, c chatRef, text string) any {
	if c == mattermostTeamChannel {
		return f.srv.Mention(string(c), mattermostIDs[p], text)
	}
	return f.srv.Say(string(c), mattermostIDs[p], "", text)
}

func (f *mattermostFake) redeliver(t *testing.T, m any) {
	t.Helper()
	if !f.srv.Redeliver(m.(mattermosttest.Post)) {
		t.Fatal("no socket was open to redeliver the post to")
	}
}

func (f *mattermostFake) messages(c chatRef) []botMessage {
	var out []botMessage
	for _, p := range f.srv.BotPosts(string(c)) {
		b := botMessage{ID: p.ID, Text: p.Shown(), History: p.History}
		for _, row := range p.Buttons {
			for _, btn := range row {
				b.Buttons = append(b.Buttons, btn.Label)
			}
		}
		out = append(out, b)
	}
	return out
}

// press clicks as p: the fake posts the press to the bot's integration
// URL, and the bot's ephemeral_text (or, late, its ephemeral post) is
// what p alone reads.
func (f *mattermostFake) press(t *testing.T, p person, c chatRef, m botMessage, label string) string {
	t.Helper()
	user := mattermostIDs[p]
	before := len(f.srv.Ephemerals(string(c), user))
	ans, err := f.srv.Click(m.ID, user, label)
	if err != nil {
		t.Fatalf("clicking %q: %v", label, err)
	}
	if ans.Status != 200 {
		t.Fatalf("the click of %q was answered %d", label, ans.Status)
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

func (f *mattermostFake) holdSends()     { f.srv.Hold("posts.create") }
func (f *mattermostFake) releaseSends()  { f.srv.Release("posts.create") }
func (f *mattermostFake) heldSends() int { return f.srv.Held("posts.create") }

func (f *mattermostFake) rateLimitNextSend(seconds int) {
	f.srv.Fail("posts.create", mattermosttest.Failure{RetryAfter: time.Duration(seconds) * time.Second, Enforce: true})
}

func (f *mattermostFake) earlyRetries() int { return f.srv.EarlyRetries() }

func (f *mattermostFake) replyCalls(c chatRef) []replyCall {
	var out []replyCall
	for _, call := range f.srv.Calls("") {
		if (call.Name == "posts.create" || call.Name == "posts.patch") && call.ChannelID == string(c) {
			out = append(out, replyCall{At: call.Time, Limited: call.Status == 429, OK: call.Status/100 == 2})
		}
	}
	return out
}

// disconnect drops the websocket without a close frame and holds new
// ones until reconnect: posts meanwhile are read back by the REST API.
func (f *mattermostFake) disconnect(t *testing.T) {
	if !f.srv.Disconnect() {
		t.Fatal("no websocket was open to drop")
	}
}

func (f *mattermostFake) reconnect(t *testing.T) { f.srv.Reconnect() }

func (f *mattermostFake) waitFor(timeout time.Duration, cond func() bool) bool {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	return f.srv.Wait(ctx, cond) == nil
}

func (f *mattermostFake) edits() bool { return true }

// hermes gateway setup mattermost writes the server's URL and the token
// (to .env) for the gateway to find; without the URL a script is told
// which flag is missing.
func TestGatewaySetupMattermost(t *testing.T) {
	home := t.TempDir()
	r := hermes(t, home, home, "gateway", "setup", "mattermost", "--non-interactive", "--url", "https://mm.example.com/",
		"--token", "abc123", "--allowed-users", mattermostIDs[bob], "--admin-users", mattermostIDs[alice])
	if r.code != 0 {
		t.Fatalf("exit %d stderr %q", r.code, r.stderr)
	}
	if cfg := readFile(t, filepath.Join(home, "config.yaml")); !contains(cfg, "    mattermost:\n      enabled: true\n      url: https://mm.example.com\n      token: ${MATTERMOST_TOKEN}\n      allowed_users: ["+mattermostIDs[bob]+"]\n      admin_users: ["+mattermostIDs[alice]+"]\n") {
		t.Fatalf("config.yaml:\n%s", cfg)
	}
	if env := readFile(t, filepath.Join(home, ".env")); env != "MATTERMOST_TOKEN=abc123\n" {
		t.Fatalf(".env %q", env)
	}
	m, r := gatewayStatusJSON(t, nil, home)
	ps := platformsOf(m)
	if len(ps) != 1 || ps[0]["platform"] != "mattermost" || ps[0]["detail"] != "gateway not running" {
		t.Fatalf("status after setup: exit %d %v stderr %q", r.code, m, r.stderr)
	}
	r = hermes(t, home, home, "gateway", "setup", "mattermost", "--non-interactive", "--token", "abc123")
	if r.code != 2 || !strings.Contains(r.stderr, "--url is required") {
		t.Fatalf("without --url: exit %d stderr %q", r.code, r.stderr)
	}
}
