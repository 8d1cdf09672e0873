package config

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func telegramSettings(users ...string) []Setting {
	return []Setting{{"enabled", true}, {"token", "${TELEGRAM_BOT_TOKEN}"}, {"allowed_users", users}, {"admin_users", users[:1]}}
}

func TestSetGatewayPlatformWritesTheBlockKeepingTheFile(t *testing.T) {
	for _, tc := range []struct{ name, before, after string }{
		{"no file", "", `gateway:
  platforms:
    telegram:
      enabled: true
      token: ${TELEGRAM_BOT_TOKEN}
      allowed_users: ["11", "12"]
      admin_users: ["11"]
`},
		{"beside the API server and another platform", `# my settings
model: m   # the default model
gateway:
  api_server:
    enabled: true  # on
  platforms:
    # the team's workspace
    slack:
      bot_token: ${SLACK_BOT_TOKEN}

# the end
approvals:
  mode: manual
`, `# my settings
model: m   # the default model
gateway:
  api_server:
    enabled: true  # on
  platforms:
    # the team's workspace
    slack:
      bot_token: ${SLACK_BOT_TOKEN}
    telegram:
      enabled: true
      token: ${TELEGRAM_BOT_TOKEN}
      allowed_users: ["11", "12"]
      admin_users: ["11"]

# the end
approvals:
  mode: manual
`},
		{"over a block of its own, four-space indents", `gateway:
    platforms:
        telegram:   # my bot
            token: old  # from BotFather
            allowed_users:
            - "5"
            - "6"
            channels:
                "-100": {require_mention: false}
            enabled: false
# trailing
model: m
`, `gateway:
    platforms:
        telegram:   # my bot
            token: ${TELEGRAM_BOT_TOKEN} # from BotFather
            allowed_users: ["11", "12"]
            channels:
                "-100": {require_mention: false}
            enabled: true
            admin_users: ["11"]
# trailing
model: m
`},
		{"an empty gateway", "gateway:   # later\nmodel: m\n", `gateway:   # later
  platforms:
    telegram:
      enabled: true
      token: ${TELEGRAM_BOT_TOKEN}
      allowed_users: ["11", "12"]
      admin_users: ["11"]
model: m
`},
		{"empty platforms in braces", "gateway:\n  platforms: {}\n", `gateway:
  platforms:
    telegram:
      enabled: true
      token: ${TELEGRAM_BOT_TOKEN}
      allowed_users: ["11", "12"]
      admin_users: ["11"]
`},
		{"comments only", "# nothing yet\n", `# nothing yet
gateway:
  platforms:
    telegram:
      enabled: true
      token: ${TELEGRAM_BOT_TOKEN}
      allowed_users: ["11", "12"]
      admin_users: ["11"]
`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			home := t.TempDir()
			p := filepath.Join(home, "config.yaml")
			if tc.before != "" {
				os.WriteFile(p, []byte(tc.before), 0o644)
			}
			if err := SetGatewayPlatform(p, "telegram", telegramSettings("11", "12")...); err != nil {
				t.Fatal(err)
			}
			b, _ := os.ReadFile(p)
			if string(b) != tc.after {
				t.Fatalf("got:\n%s\nwant:\n%s", b, tc.after)
			}
			c, err := Load(home, env(map[string]string{"TELEGRAM_BOT_TOKEN": "1:x"}))
			if err != nil || !reflect.DeepEqual(c.GatewayPlatforms(), []string{"telegram"}) || c.CheckPlatform("telegram") != nil ||
				!reflect.DeepEqual(c.Gateway.Platforms.Telegram.AllowedUsers, []string{"11", "12"}) || len(c.Warnings) != 0 {
				t.Fatalf("loaded: err %v platforms %v check %v warnings %v", err, c.GatewayPlatforms(), c.CheckPlatform("telegram"), c.Warnings)
			}
			// Writing the same again changes nothing.
			if err := SetGatewayPlatform(p, "telegram", telegramSettings("11", "12")...); err != nil {
				t.Fatal(err)
			}
			if again, _ := os.ReadFile(p); string(again) != tc.after {
				t.Fatalf("a second write changed the file:\n%s", again)
			}
		})
	}
}

func TestSetGatewayPlatformKeepsLineEndings(t *testing.T) {
	p := filepath.Join(t.TempDir(), "config.yaml")
	os.WriteFile(p, []byte("model: m\r\ngateway:\r\n  platforms:\r\n    discord:\r\n      token: old\r\n"), 0o600)
	if err := SetGatewayPlatform(p, "discord", Setting{"token", "${DISCORD_BOT_TOKEN}"}, Setting{"allow_all", false}); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(p)
	if want := "model: m\r\ngateway:\r\n  platforms:\r\n    discord:\r\n      token: ${DISCORD_BOT_TOKEN}\r\n      allow_all: false\r\n"; string(b) != want {
		t.Fatalf("got %q", b)
	}
}

func TestSetGatewayPlatformRefusesWhatItCannotEditSafely(t *testing.T) {
	for _, tc := range []struct {
		before, want string
		settings     []Setting
		platform     string
	}{
		{"gateway: {api_server: {enabled: true}}\n", "gateway is written in {braces}", telegramSettings("1"), "telegram"},
		{"gateway:\n  platforms: [telegram]\n", "gateway.platforms is not a mapping", telegramSettings("1"), "telegram"},
		{"gateway:\n  platforms:\n    telegram: on\n", "gateway.platforms.telegram is not a mapping", telegramSettings("1"), "telegram"},
		{"model: m\n", `no platform "irc"`, telegramSettings("1"), "irc"},
		{"model: m\n", `gateway.platforms.slack has no key "tokne"`, []Setting{{"tokne", "x"}}, "slack"},
		{"model: m\n", "a value of type int", []Setting{{"mode", 3}}, "slack"},
	} {
		p := filepath.Join(t.TempDir(), "config.yaml")
		os.WriteFile(p, []byte(tc.before), 0o600)
		err := SetGatewayPlatform(p, tc.platform, tc.settings...)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: err = %v, want %q", tc.before, err, tc.want)
		}
		if b, _ := os.ReadFile(p); string(b) != tc.before {
			t.Errorf("%q: the file changed to %q", tc.before, b)
		}
	}
}

func TestSetDotEnvReplacesItsVariablesAndKeepsTheRest(t *testing.T) {
	p := filepath.Join(t.TempDir(), ".env")
	os.WriteFile(p, []byte("# keys\nOPENAI_API_KEY=sk-1\nexport TELEGRAM_BOT_TOKEN=old\nTELEGRAM_BOT_TOKEN=older\n\nOTHER='x y'\n"), 0o644)
	err := SetDotEnv(p, map[string]string{"TELEGRAM_BOT_TOKEN": "123:new", "SLACK_SIGNING_SECRET": "has # and space", "A_EMPTY": ""})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(p)
	want := "# keys\nOPENAI_API_KEY=sk-1\nTELEGRAM_BOT_TOKEN=123:new\n\nOTHER='x y'\nA_EMPTY=\"\"\nSLACK_SIGNING_SECRET=\"has # and space\"\n"
	if string(b) != want {
		t.Fatalf("got:\n%s\nwant:\n%s", b, want)
	}
	if fi, _ := os.Stat(p); fi.Mode().Perm() != 0o600 {
		t.Fatalf("mode %v, want 0600", fi.Mode().Perm())
	}
	m, err := LoadDotEnv(p)
	if err != nil || m["TELEGRAM_BOT_TOKEN"] != "123:new" || m["SLACK_SIGNING_SECRET"] != "has # and space" || m["OTHER"] != "x y" || m["OPENAI_API_KEY"] != "sk-1" {
		t.Fatalf("read back %v %v", m, err)
	}
	for _, bad := range []map[string]string{{"A B": "x"}, {"K": "two\nlines"}} {
		if err := SetDotEnv(p, bad); err == nil {
			t.Errorf("%v was written", bad)
		}
	}
	if after, _ := os.ReadFile(p); string(after) != want {
		t.Fatal("a refused write changed the file")
	}
	// A new file is private too.
	q := filepath.Join(t.TempDir(), "sub", ".env")
	if err := SetDotEnv(q, map[string]string{"DISCORD_BOT_TOKEN": "d"}); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(q); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("new file: %v %v", fi, err)
	}
}
