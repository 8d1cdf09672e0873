package config

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

func loadDoc(t *testing.T, doc string, vars map[string]string) (*Config, error) {
	t.Helper()
	home := t.TempDir()
	if doc != "" {
		if err := os.WriteFile(filepath.Join(home, "config.yaml"), []byte(doc), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return Load(home, env(vars))
}

func TestGatewayDefaults(t *testing.T) {
	c, err := loadDoc(t, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	g := c.Gateway
	if len(c.GatewayPlatforms()) != 0 || !*g.GroupSessionsPerUser || g.MaxConcurrentTurns != 10 ||
		!*c.Streaming.Enabled || c.Streaming.Interval() != 800*time.Millisecond || g.Platforms.Slack.Mode != "socket" ||
		g.Platforms.Telegram.WebhookListen != "127.0.0.1:8443" || g.Platforms.Slack.EventsListen != "127.0.0.1:3000" {
		t.Fatalf("gateway defaults %+v streaming %+v", g, c.Streaming)
	}
	if err := c.CheckGateway(); err != nil {
		t.Fatalf("nothing enabled, yet: %v", err)
	}
}

// TELEGRAM_BOT_TOKEN alone enables Telegram; the other variables fill
// its settings, lists comma-separated.
func TestGatewayPlatformsFromTheEnvironmentAlone(t *testing.T) {
	c, err := loadDoc(t, "", map[string]string{
		"TELEGRAM_BOT_TOKEN": "123:abc", "TELEGRAM_ALLOWED_USERS": " 11, 12,,", "TELEGRAM_ADMIN_USERS": "11",
		"TELEGRAM_API_URL": "http://127.0.0.1:9/", "TELEGRAM_WEBHOOK_URL": "https://bot.example/hook",
		"DISCORD_ALLOWED_USERS": "42", // no token: Discord stays off
	})
	if err != nil {
		t.Fatal(err)
	}
	tg := c.Gateway.Platforms.Telegram
	if got := c.GatewayPlatforms(); !reflect.DeepEqual(got, []string{"telegram"}) {
		t.Fatalf("platforms %v", got)
	}
	if tg.Token != "123:abc" || !reflect.DeepEqual(tg.AllowedUsers, []string{"11", "12"}) || !reflect.DeepEqual(tg.AdminUsers, []string{"11"}) ||
		tg.APIURL != "http://127.0.0.1:9/" || tg.WebhookURL != "https://bot.example/hook" {
		t.Fatalf("telegram %+v", tg)
	}
	if err := c.CheckGateway(); err != nil {
		t.Fatal(err)
	}

	c, err = loadDoc(t, "", map[string]string{
		"SLACK_BOT_TOKEN": "xoxb-1", "SLACK_APP_TOKEN": "xapp-1", "SLACK_SIGNING_SECRET": "s", "SLACK_ALLOWED_USERS": "U1,W2",
		"SLACK_ADMIN_USERS": "U1", "SLACK_API_URL": "http://127.0.0.1:9/api/",
		"DISCORD_BOT_TOKEN": "d", "DISCORD_ALLOWED_USERS": "7", "DISCORD_ADMIN_USERS": "8", "DISCORD_API_URL": "http://127.0.0.1:9",
		"TELEGRAM_BOT_TOKEN": "1:t",
	})
	if err != nil {
		t.Fatal(err)
	}
	sl, dc := c.Gateway.Platforms.Slack, c.Gateway.Platforms.Discord
	if got := c.GatewayPlatforms(); !reflect.DeepEqual(got, []string{"telegram", "slack", "discord"}) {
		t.Fatalf("platforms %v, want the stable order", got)
	}
	if sl.BotToken != "xoxb-1" || sl.AppToken != "xapp-1" || sl.SigningSecret != "s" || !reflect.DeepEqual(sl.AllowedUsers, []string{"U1", "W2"}) ||
		!reflect.DeepEqual(sl.AdminUsers, []string{"U1"}) || sl.APIURL != "http://127.0.0.1:9/api/" {
		t.Fatalf("slack %+v", sl)
	}
	if dc.Token != "d" || !reflect.DeepEqual(dc.AllowedUsers, []string{"7"}) || !reflect.DeepEqual(dc.AdminUsers, []string{"8"}) || dc.APIURL != "http://127.0.0.1:9" {
		t.Fatalf("discord %+v", dc)
	}
}

// A variable that is set wins over config.yaml, as API_SERVER_KEY does;
// one that is not leaves the file's value.
func TestGatewayEnvironmentWinsOverTheFile(t *testing.T) {
	doc := "gateway:\n  platforms:\n    telegram:\n      token: from-file\n      allowed_users: [1]\n      admin_users: [2]\n      home_channel: '-100'\n"
	c, err := loadDoc(t, doc, map[string]string{"TELEGRAM_BOT_TOKEN": "from-env", "TELEGRAM_ALLOWED_USERS": "3"})
	if err != nil {
		t.Fatal(err)
	}
	tg := c.Gateway.Platforms.Telegram
	if tg.Token != "from-env" || !reflect.DeepEqual(tg.AllowedUsers, []string{"3"}) || !reflect.DeepEqual(tg.AdminUsers, []string{"2"}) || tg.HomeChannel != "-100" {
		t.Fatalf("telegram %+v", tg)
	}
}

func TestGatewayReferencesAreExpanded(t *testing.T) {
	doc := `gateway:
  platforms:
    telegram:
      token: ${TG_TOKEN}
      allowed_users: ["${TG_USERS}", 9]
      api_url: http://${FAKE_HOST}/
    slack:
      bot_token: ${env:SB}
      app_token: ${SA}
`
	c, err := loadDoc(t, doc, map[string]string{"TG_TOKEN": "1:x", "TG_USERS": "5, 6", "FAKE_HOST": "127.0.0.1:1", "SB": "xoxb-2", "SA": "xapp-2"})
	if err != nil {
		t.Fatal(err)
	}
	tg, sl := c.Gateway.Platforms.Telegram, c.Gateway.Platforms.Slack
	if tg.Token != "1:x" || !reflect.DeepEqual(tg.AllowedUsers, []string{"5", "6", "9"}) || tg.APIURL != "http://127.0.0.1:1/" ||
		sl.BotToken != "xoxb-2" || sl.AppToken != "xapp-2" {
		t.Fatalf("telegram %+v slack %+v", tg, sl)
	}
	if err := c.CheckGateway(); err != nil {
		t.Fatal(err)
	}

	// A reference to a variable not set is a problem of the platform,
	// even though its token is then empty: the gateway says so instead of
	// leaving the platform off.
	c, err = loadDoc(t, doc, map[string]string{"SB": "xoxb-2", "SA": "xapp-2", "FAKE_HOST": "h"})
	if err != nil {
		t.Fatal(err)
	}
	if got := c.GatewayPlatforms(); !reflect.DeepEqual(got, []string{"slack"}) {
		t.Fatalf("platforms %v", got)
	}
	err = c.CheckGateway()
	if err == nil || !strings.Contains(err.Error(), "gateway.platforms.telegram.token uses ${TG_TOKEN}, which is not set") ||
		!strings.Contains(err.Error(), "gateway.platforms.telegram.allowed_users uses ${TG_USERS}") || strings.Contains(err.Error(), "slack") {
		t.Fatalf("err = %v", err)
	}
	// The environment's value of the key makes the reference moot.
	c, err = loadDoc(t, doc, map[string]string{"TELEGRAM_BOT_TOKEN": "1:y", "TELEGRAM_ALLOWED_USERS": "5", "FAKE_HOST": "h"})
	if err != nil || c.CheckPlatform("telegram") != nil || c.Gateway.Platforms.Telegram.Token != "1:y" {
		t.Fatalf("err %v check %v", err, c.CheckPlatform("telegram"))
	}
}

func TestGatewayEnabledWithoutTokenIsAProblemOfTheGatewayOnly(t *testing.T) {
	for _, tc := range []struct{ doc, want string }{
		{"gateway:\n  platforms:\n    telegram:\n      enabled: true\n", "telegram is enabled but has no bot token: set TELEGRAM_BOT_TOKEN"},
		{"gateway:\n  platforms:\n    discord:\n      enabled: true\n", "discord is enabled but has no bot token: set DISCORD_BOT_TOKEN"},
		{"gateway:\n  platforms:\n    slack:\n      bot_token: xoxb-1\n", "slack is enabled but has no app-level token (xapp-) for socket mode: set SLACK_APP_TOKEN"},
		{"gateway:\n  platforms:\n    slack:\n      bot_token: xoxb-1\n      mode: events\n", "set SLACK_SIGNING_SECRET"},
		{"gateway:\n  platforms:\n    slack:\n      enabled: true\n      app_token: xapp-1\n", "set SLACK_BOT_TOKEN"},
	} {
		c, err := loadDoc(t, tc.doc, nil)
		if err != nil {
			t.Fatalf("%q: hermes chat would fail too: %v", tc.doc, err)
		}
		if err := c.CheckGateway(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: err = %v, want %q", tc.doc, err, tc.want)
		}
	}
	// enabled: false keeps a platform off even with its token.
	c, err := loadDoc(t, "gateway:\n  platforms:\n    telegram:\n      enabled: false\n      token: ${NOT_SET}\n", map[string]string{"TELEGRAM_BOT_TOKEN": "1:x"})
	if err != nil || len(c.GatewayPlatforms()) != 0 || c.CheckGateway() != nil {
		t.Fatalf("err %v platforms %v check %v", err, c.GatewayPlatforms(), c.CheckGateway())
	}
	c, err = loadDoc(t, "gateway:\n  platforms:\n    slack:\n      bot_token: xoxb-1\n      mode: events\n      signing_secret: s\n", nil)
	if err != nil || c.CheckGateway() != nil {
		t.Fatalf("events mode needs no app token: %v %v", err, c.CheckGateway())
	}
}

func TestGatewayValuesOutOfRangeAreErrors(t *testing.T) {
	for _, tc := range []struct {
		doc  string
		vars map[string]string
		want []string
	}{
		{"gateway:\n  platforms:\n    slack:\n      mode: sockets\n", nil,
			[]string{"config.yaml:4: gateway.platforms.slack.mode: \"sockets\" is not allowed (one of socket, events)"}},
		{"streaming:\n  edit_interval: 0\n", nil, []string{"config.yaml:2: streaming.edit_interval: 0 is not allowed"}},
		{"streaming:\n  edit_interval: -1\n", nil, []string{"streaming.edit_interval: -1"}},
		{"streaming:\n  edit_interval: 61\n", nil, []string{"streaming.edit_interval: 61"}},
		{"gateway:\n  max_concurrent_turns: 0\n", nil, []string{"config.yaml:2: gateway.max_concurrent_turns: 0"}},
		{"gateway:\n  platforms:\n    telegram:\n      api_url: api.telegram.org\n", nil,
			[]string{"config.yaml:4: gateway.platforms.telegram.api_url: \"api.telegram.org\" is not allowed (an http or https URL)"}},
		{"gateway:\n  platforms:\n    telegram:\n      webhook_listen: 8443\n      allowed_users: ['@alice']\n", nil,
			[]string{"config.yaml:4: gateway.platforms.telegram.webhook_listen: \"8443\"", "config.yaml:5: gateway.platforms.telegram.allowed_users: \"@alice\" is not allowed (a Telegram user id, a number"}},
		{"gateway:\n  platforms:\n    telegram:\n      webhook_secret: 'has spaces'\n", nil, []string{"gateway.platforms.telegram.webhook_secret"}},
		{"gateway:\n  platforms:\n    slack:\n      admin_users: [alice]\n      events_listen: ':99999'\n", nil,
			[]string{"gateway.platforms.slack.admin_users: \"alice\" is not allowed (a Slack member id", "gateway.platforms.slack.events_listen"}},
		{"", map[string]string{"TELEGRAM_API_URL": "ftp://x"},
			[]string{"TELEGRAM_API_URL (gateway.platforms.telegram.api_url): \"ftp://x\" is not allowed (an http or https URL)"}},
		{"", map[string]string{"DISCORD_ALLOWED_USERS": "1,bob"}, []string{"DISCORD_ALLOWED_USERS (gateway.platforms.discord.allowed_users): \"bob\""}},
	} {
		_, err := loadDoc(t, tc.doc, tc.vars)
		for _, w := range tc.want {
			if err == nil || !strings.Contains(err.Error(), w) {
				t.Errorf("%q %v: err = %v, want %q", tc.doc, tc.vars, err, w)
			}
		}
	}
	c, err := loadDoc(t, "streaming:\n  enabled: false\n  edit_interval: \"1.5\"\ngateway:\n  group_sessions_per_user: false\n  max_concurrent_turns: 3\n", nil)
	if err != nil || *c.Streaming.Enabled || c.Streaming.Interval() != 1500*time.Millisecond || *c.Gateway.GroupSessionsPerUser || c.Gateway.MaxConcurrentTurns != 3 {
		t.Fatalf("err %v streaming %+v gateway %+v", err, c.Streaming, c.Gateway)
	}
}

// The keys every platform shares are checked for typos like its own.
func TestGatewayUnknownKeysAreWarned(t *testing.T) {
	c, err := loadDoc(t, "gateway:\n  platforms:\n    telegram:\n      tokne: x\n      allowed_user: [1]\n    irc: {}\n", nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		`config.yaml:4: unknown key "gateway.platforms.telegram.tokne" ignored (did you mean "gateway.platforms.telegram.token"?)`,
		`config.yaml:5: unknown key "gateway.platforms.telegram.allowed_user" ignored (did you mean "gateway.platforms.telegram.allowed_users"?)`,
		`config.yaml:6: unknown key "gateway.platforms.irc" ignored`,
	}
	if len(c.Warnings) != len(want) {
		t.Fatalf("warnings %q", c.Warnings)
	}
	for i, w := range want {
		if !strings.Contains(c.Warnings[i], w) {
			t.Errorf("warning %q, want %q", c.Warnings[i], w)
		}
	}
}

func TestPlatformAccessAndMentions(t *testing.T) {
	doc := `gateway:
  platforms:
    discord:
      token: d
      allowed_users: [100]
      admin_users: [200]
      channels:
        "555": {require_mention: false}
    slack:
      bot_token: b
      allow_all: true
      require_mention: false
      channels:
        C1: {require_mention: true}
`
	c, err := loadDoc(t, doc, nil)
	if err != nil {
		t.Fatal(err)
	}
	dc := c.Gateway.Platforms.Settings("discord")
	if !dc.IsAllowed("100") || !dc.IsAllowed("200") || dc.IsAllowed("300") || dc.IsAdmin("100") || !dc.IsAdmin("200") {
		t.Fatalf("discord access %+v", dc)
	}
	if !dc.MentionRequired("1") || dc.MentionRequired("555") {
		t.Fatal("discord: mentions are required by default and not in channel 555")
	}
	sl := c.Gateway.Platforms.Settings("slack")
	if !sl.IsAllowed("U999") || sl.IsAdmin("U999") || sl.MentionRequired("C2") || !sl.MentionRequired("C1") {
		t.Fatalf("slack %+v", sl)
	}
	if c.Gateway.Platforms.Settings("irc") != nil || c.CheckPlatform("irc") == nil {
		t.Fatal("an unknown platform has settings")
	}
}

func TestUserIDFormsOfEveryPlatform(t *testing.T) {
	for _, c := range []struct {
		platform  string
		good, bad []string
	}{
		{"matrix", []string{"@alice:example.org", "@bot:matrix.example.org:8448"}, []string{"alice", "@alice", "alice:example.org", "@:x"}},
		{"email", []string{"alice@example.org"}, []string{"alice", "alice@localhost", "Alice <alice@example.org>"}},
		{"signal", []string{"+15551234567", "0f1e2d3c-4b5a-6978-8695-a4b3c2d1e0f9"}, []string{"15551234567", "+1 555", "alice"}},
		{"mattermost", []string{"8ztqqqhj3jbkjxkjhx9kaxaqqo"}, []string{"@alice", "8ZTQQQHJ3JBKJXKJHX9KAXAQQO", "short"}},
	} {
		for _, id := range c.good {
			if err := ValidUserID(c.platform, id); err != nil {
				t.Errorf("%s %q refused: %v", c.platform, id, err)
			}
		}
		for _, id := range c.bad {
			if err := ValidUserID(c.platform, id); err == nil {
				t.Errorf("%s %q accepted", c.platform, id)
			}
		}
	}
}

// "CHAT[:THREAD]" splits at the first colon, except a Matrix room id,
// which holds one: its thread is a trailing event id.
func TestSplitChat(t *testing.T) {
	for _, c := range []struct{ platform, in, chat, thread string }{
		{"telegram", "-100123:45", "-100123", "45"},
		{"slack", "C123", "C123", ""},
		{"slack", "C123:1700000000.000100", "C123", "1700000000.000100"},
		{"matrix", "!abc:example.org", "!abc:example.org", ""},
		{"matrix", "!abc:example.org:8448", "!abc:example.org:8448", ""},
		{"matrix", "!abc:example.org:$ev1", "!abc:example.org", "$ev1"},
	} {
		if chat, thread := SplitChat(c.platform, c.in); chat != c.chat || thread != c.thread {
			t.Errorf("SplitChat(%s, %q) = %q, %q; want %q, %q", c.platform, c.in, chat, thread, c.chat, c.thread)
		}
	}
}
