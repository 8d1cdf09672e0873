package e2e

import (
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// gatewayStatusJSON runs hermes gateway status --json with env.
func gatewayStatusJSON(t *testing.T, env []string, home string) (map[string]any, result) {
	t.Helper()
	r := hermesEnv(t, env, home, home, "gateway", "status", "--json")
	var m map[string]any
	if err := json.Unmarshal([]byte(r.stdout), &m); err != nil {
		t.Fatalf("status --json: %v: exit %d stdout %q stderr %q", err, r.code, r.stdout, r.stderr)
	}
	return m, r
}

// Scripts set a platform up with flags: the token goes to a private .env
// (its other lines kept), the block to config.yaml (its comments kept),
// and the gateway's configuration then holds the platform.
func TestGatewaySetupNonInteractive(t *testing.T) {
	home := t.TempDir()
	os.WriteFile(filepath.Join(home, "config.yaml"), []byte("# my settings\nmodel: m   # the default model\ngateway:\n  api_server:\n    enabled: false  # not yet\n"), 0o644)
	os.WriteFile(filepath.Join(home, ".env"), []byte("OPENAI_API_KEY=sk-keep\nTELEGRAM_BOT_TOKEN=old\n"), 0o644)

	r := hermes(t, home, home, "gateway", "setup", "telegram", "--non-interactive", "--allowed-users", "11")
	if r.code != 2 || !strings.Contains(r.stderr, "--token is required with --non-interactive") {
		t.Fatalf("without --token: exit %d stderr %q", r.code, r.stderr)
	}
	r = hermes(t, home, home, "gateway", "setup", "telegram", "--non-interactive", "--token", "123456:AAbb-cc_dd", "--allowed-users", "11,@bob")
	if r.code != 2 || !strings.Contains(r.stderr, `"@bob" is not a Telegram user id`) {
		t.Fatalf("a user name for an id: exit %d stderr %q", r.code, r.stderr)
	}
	if got := readFile(t, filepath.Join(home, ".env")); got != "OPENAI_API_KEY=sk-keep\nTELEGRAM_BOT_TOKEN=old\n" {
		t.Fatalf("a refused setup wrote .env: %q", got)
	}

	r = hermes(t, home, home, "gateway", "setup", "telegram", "--non-interactive", "--token", "123456:AAbb-cc_dd",
		"--allowed-users", "11, 12", "--admin-users", "11")
	if r.code != 0 || !contains(r.stdout, "Wrote TELEGRAM_BOT_TOKEN to "+filepath.Join(home, ".env"), "gateway.platforms.telegram", "hermes gateway") {
		t.Fatalf("setup: exit %d stdout %q stderr %q", r.code, r.stdout, r.stderr)
	}
	if got, want := readFile(t, filepath.Join(home, ".env")), "OPENAI_API_KEY=sk-keep\nTELEGRAM_BOT_TOKEN=123456:AAbb-cc_dd\n"; got != want {
		t.Fatalf(".env %q, want %q", got, want)
	}
	if fi, _ := os.Stat(filepath.Join(home, ".env")); fi.Mode().Perm() != 0o600 {
		t.Fatalf(".env mode %v", fi.Mode().Perm())
	}
	want := `# my settings
model: m   # the default model
gateway:
  api_server:
    enabled: false  # not yet
  platforms:
    telegram:
      enabled: true
      token: ${TELEGRAM_BOT_TOKEN}
      allowed_users: ["11", "12"]
      admin_users: ["11"]
`
	if got := readFile(t, filepath.Join(home, "config.yaml")); got != want {
		t.Fatalf("config.yaml:\n%s\nwant:\n%s", got, want)
	}
	// The gateway's view: Telegram enabled, its token found through .env.
	m, r := gatewayStatusJSON(t, nil, home)
	ps := m["platforms"].([]any)
	if r.code != 1 || len(ps) != 1 || ps[0].(map[string]any)["platform"] != "telegram" || ps[0].(map[string]any)["detail"] != "gateway not running" {
		t.Fatalf("status after setup: exit %d %v stderr %q", r.code, m, r.stderr)
	}

	// Slack with a signing secret is the Events API.
	r = hermes(t, home, home, "gateway", "setup", "slack", "--non-interactive", "--token", "xoxb-1-2", "--signing-secret", "abc123", "--allowed-users", "U012ABCDEF")
	if r.code != 0 {
		t.Fatalf("slack: exit %d stderr %q", r.code, r.stderr)
	}
	if cfg := readFile(t, filepath.Join(home, "config.yaml")); !contains(cfg, want[:len(want)-1], "    slack:\n      enabled: true\n      bot_token: ${SLACK_BOT_TOKEN}\n      mode: events\n      signing_secret: ${SLACK_SIGNING_SECRET}\n      allowed_users: [U012ABCDEF]\n      admin_users: []\n") {
		t.Fatalf("config.yaml:\n%s", cfg)
	}
	if env := readFile(t, filepath.Join(home, ".env")); !contains(env, "SLACK_BOT_TOKEN=xoxb-1-2\n", "SLACK_SIGNING_SECRET=abc123\n", "TELEGRAM_BOT_TOKEN=123456:AAbb-cc_dd\n") {
		t.Fatalf(".env %q", env)
	}
	// What the environment sets wins, and setup says so.
	r = hermesEnv(t, []string{"TELEGRAM_BOT_TOKEN=999:other", "TELEGRAM_ALLOWED_USERS=5"}, home, home,
		"gateway", "setup", "telegram", "--non-interactive", "--token", "123456:AAbb-cc_dd", "--allowed-users", "11, 12", "--admin-users", "11")
	if r.code != 0 || !contains(r.stderr, "TELEGRAM_BOT_TOKEN is set in the environment to another value, which wins",
		"TELEGRAM_ALLOWED_USERS is set (in the environment or .env) and wins over gateway.platforms.telegram.allowed_users") {
		t.Fatalf("overridden: exit %d stderr %q", r.code, r.stderr)
	}
	r = hermes(t, home, home, "gateway", "setup", "slack", "--non-interactive", "--token", "xoxb-1")
	if r.code != 2 || !strings.Contains(r.stderr, "--app-token (Socket Mode) or --signing-secret") {
		t.Fatalf("slack without a mode: exit %d stderr %q", r.code, r.stderr)
	}
	if r := hermes(t, home, home, "gateway", "setup", "irc", "--non-interactive"); r.code != 2 || !strings.Contains(r.stderr, `no platform "irc"`) {
		t.Fatalf("irc: exit %d stderr %q", r.code, r.stderr)
	}
	// Matrix: the homeserver goes to config.yaml, the access token to .env.
	if r := hermes(t, home, home, "gateway", "setup", "matrix", "--non-interactive", "--token", "syt_x"); r.code != 2 || !strings.Contains(r.stderr, "--homeserver is required") {
		t.Fatalf("matrix without a homeserver: exit %d stderr %q", r.code, r.stderr)
	}
	r = hermes(t, home, home, "gateway", "setup", "matrix", "--non-interactive", "--homeserver", "https://matrix.example.org", "--token", "syt_x", "--allowed-users", "@alice:example.org")
	if cfg := readFile(t, filepath.Join(home, "config.yaml")); r.code != 0 || !contains(cfg, "    matrix:\n      enabled: true\n      homeserver: https://matrix.example.org\n      access_token: ${MATRIX_ACCESS_TOKEN}\n      allowed_users: [\"@alice:example.org\"]\n") {
		t.Fatalf("matrix: exit %d stderr %q config.yaml:\n%s", r.code, r.stderr, cfg)
	}
	if env := readFile(t, filepath.Join(home, ".env")); !contains(env, "MATRIX_ACCESS_TOKEN=syt_x\n") {
		t.Fatalf(".env %q", env)
	}
}

// Answers come one a line from standard input (a pipe here); a wrong
// answer is asked again; the admins default to the allowed users.
func TestGatewaySetupAsksOnStandardInput(t *testing.T) {
	home := t.TempDir()
	r := hermesIn(t, "xoxp-user-token\nxoxb-9\nxapp-9\nU01AAA, W02BBB\n\n", home, home, "gateway", "setup", "slack")
	if r.code != 0 || !contains(r.stderr, "api.slack.com/apps", "Bot token (xoxb-", "the bot token starts with xoxb-; again.", "App-level token", "User ids allowed") {
		t.Fatalf("exit %d stdout %q stderr %q", r.code, r.stdout, r.stderr)
	}
	want := `gateway:
  platforms:
    slack:
      enabled: true
      bot_token: ${SLACK_BOT_TOKEN}
      mode: socket
      app_token: ${SLACK_APP_TOKEN}
      allowed_users: [U01AAA, W02BBB]
      admin_users: [U01AAA, W02BBB]
`
	if got := readFile(t, filepath.Join(home, "config.yaml")); got != want {
		t.Fatalf("config.yaml:\n%s", got)
	}
	if got := readFile(t, filepath.Join(home, ".env")); got != "SLACK_APP_TOKEN=xapp-9\nSLACK_BOT_TOKEN=xoxb-9\n" {
		t.Fatalf(".env %q", got)
	}
	// No user: pairing only, and setup says how to let people in.
	r = hermesIn(t, "123:abc\n\n\n", home, home, "gateway", "setup", "telegram")
	if r.code != 0 || !strings.Contains(r.stdout, "hermes pairing approve telegram CODE") ||
		!strings.Contains(readFile(t, filepath.Join(home, "config.yaml")), "      allowed_users: []\n      admin_users: []\n") {
		t.Fatalf("exit %d stdout %q stderr %q", r.code, r.stdout, r.stderr)
	}
	// Input that ends before the token changes nothing.
	before := readFile(t, filepath.Join(home, "config.yaml"))
	r = hermesIn(t, "", home, home, "gateway", "setup", "discord")
	if r.code != 2 || !strings.Contains(r.stderr, "standard input ended") || readFile(t, filepath.Join(home, "config.yaml")) != before {
		t.Fatalf("no input: exit %d stderr %q", r.code, r.stderr)
	}
}

// On a terminal the token is not echoed; the next answers are.
func TestGatewaySetupReadsTheTokenWithoutEcho(t *testing.T) {
	home := t.TempDir()
	master, slave := openPTY(t)
	defer master.Close()
	defer slave.Close()
	cmd := exec.Command(hermesBin, "gateway", "setup", "discord")
	cmd.Dir = home
	cmd.Stdin = slave
	cmd.Env = []string{"HOME=" + home, "HERMES_HOME=" + home, "PATH=" + os.Getenv("PATH")}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	cmd.Stdout = &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// Echo is off by the time the question is asked: type the token then.
	prompts := make(chan string, 10)
	go func() {
		var seen strings.Builder
		buf := make([]byte, 4096)
		for {
			n, err := stderr.Read(buf)
			seen.Write(buf[:n])
			prompts <- seen.String()
			if err != nil {
				close(prompts)
				return
			}
		}
	}()
	waitFor := func(what string) {
		t.Helper()
		deadline := time.After(20 * time.Second)
		for {
			select {
			case s, ok := <-prompts:
				if !ok {
					t.Fatalf("hermes ended before asking %q", what)
				}
				if strings.Contains(s, what) {
					return
				}
			case <-deadline:
				t.Fatalf("no question %q", what)
			}
		}
	}
	waitFor("Bot token")
	master.WriteString("secret.discord.token\n")
	waitFor("User ids allowed")
	master.WriteString("4242\n")
	waitFor("Admin user ids")
	master.WriteString("-\n")
	if err := cmd.Wait(); err != nil {
		t.Fatalf("setup: %v; stdout %q", err, out.String())
	}
	// What the terminal showed: everything echoed, then a mark.
	slave.WriteString("END-OF-ECHO\n")
	var shown strings.Builder
	buf := make([]byte, 4096)
	for !strings.Contains(shown.String(), "END-OF-ECHO") {
		n, err := master.Read(buf)
		shown.Write(buf[:n])
		if err == io.EOF || err != nil && n == 0 {
			t.Fatalf("reading the terminal: %v", err)
		}
	}
	if strings.Contains(shown.String(), "secret.discord.token") || !strings.Contains(shown.String(), "4242") {
		t.Fatalf("the terminal showed %q", shown.String())
	}
	if env := readFile(t, filepath.Join(home, ".env")); env != "DISCORD_BOT_TOKEN=secret.discord.token\n" {
		t.Fatalf(".env %q", env)
	}
	if cfg := readFile(t, filepath.Join(home, "config.yaml")); !strings.Contains(cfg, "      allowed_users: [\"4242\"]\n      admin_users: []\n") {
		t.Fatalf("config.yaml:\n%s", cfg)
	}
}
