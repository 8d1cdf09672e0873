package config

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

var slackModes = []string{"socket", "events"}

// userIDForm says whether id has the form of the platform's user ids
// (Telegram's and Discord's are numbers, Slack's U or W and capitals),
// and what that form is.
func userIDForm(platform, id string) (ok bool, want string) {
	switch platform {
	case "telegram":
		return id != "" && onlyOf(id, "0123456789"), "a Telegram user id, a number (not @name)"
	case "slack":
		return len(id) > 1 && (id[0] == 'U' || id[0] == 'W') && onlyOf(id, "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"),
			"a Slack member id such as U012ABCDEF"
	case "discord":
		return id != "" && onlyOf(id, "0123456789"), "a Discord user id, a number"
	case "matrix":
		local, server, ok := strings.Cut(strings.TrimPrefix(id, "@"), ":")
		return ok && strings.HasPrefix(id, "@") && local != "" && server != "" && !strings.ContainsAny(id, " \t"),
			"a Matrix user id such as @alice:example.org"
	case "email":
		local, domain, ok := strings.Cut(id, "@")
		return ok && local != "" && strings.Contains(domain, ".") && !strings.ContainsAny(id, " \t<>,;"),
			"an email address such as alice@example.org"
	case "signal":
		// A phone number in international form, or an account's UUID.
		phone := len(id) > 4 && id[0] == '+' && onlyOf(id[1:], "0123456789")
		uuid := len(id) == 36 && onlyOf(id, "0123456789abcdef-")
		return phone || uuid, "a Signal number such as +15551234567 (or the account's UUID)"
	case "mattermost":
		return len(id) == 26 && onlyOf(id, "abcdefghijklmnopqrstuvwxyz0123456789"),
			"a Mattermost user id, 26 lowercase letters and digits (not @name)"
	}
	return false, "a user id"
}

// onlyOf reports whether every byte of s is one of chars.
func onlyOf(s, chars string) bool {
	for i := range len(s) {
		if !strings.Contains(chars, s[i:i+1]) {
			return false
		}
	}
	return true
}

// wordChars make up a variable's name; a Telegram webhook secret may
// also hold '-'.
const wordChars = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_"

// ValidUserID says whether id has the form of a user id of the platform
// (Telegram and Discord: a number; Slack: a member id such as
// U012ABCDEF), and if not, what is expected.
func ValidUserID(platform, id string) error {
	if p := (&Platforms{}).Settings(platform); p == nil {
		return fmt.Errorf("no platform %q", platform)
	}
	if ok, want := userIDForm(platform, id); !ok {
		return fmt.Errorf("%q is not %s", id, want)
	}
	return nil
}

// validateGateway checks the platforms' settings once the environment
// and ${VAR} references have filled them, naming the variable a value
// came from, or the key and its line.
func (c *Config) validateGateway(keys *keyIndex, file string) error {
	type problem struct {
		line int
		text string
	}
	var problems []problem
	bad := func(key, value, allowed string) {
		where := keys.at(file, key) + ": " + key
		if v, ok := c.Gateway.fromEnv[key]; ok {
			where = v + " (" + key + ")"
		}
		problems = append(problems, problem{keys.line(key),
			fmt.Sprintf("%s: %s is not allowed (%s)", where, value, allowed)})
	}
	httpURL := func(key, v string) {
		if u, err := url.Parse(v); v != "" && (err != nil || u.Scheme != "http" && u.Scheme != "https" || u.Host == "") {
			bad(key, fmt.Sprintf("%q", v), "an http or https URL")
		}
	}
	listen := func(key, v string) {
		host, port, err := net.SplitHostPort(v)
		if n, perr := strconv.Atoi(port); v != "" && (err != nil || perr != nil || n < 1 || n > 65535 || strings.ContainsAny(host, "/ ")) {
			bad(key, fmt.Sprintf("%q", v), "an address to listen on, host:port, such as 127.0.0.1:8443")
		}
	}
	p := &c.Gateway.Platforms
	for _, name := range GatewayPlatformNames() {
		s := p.Settings(name)
		prefix := "gateway.platforms." + name + "."
		httpURL(prefix+"api_url", s.APIURL)
		for _, l := range []struct {
			key  string
			list []string
		}{{"allowed_users", s.AllowedUsers}, {"admin_users", s.AdminUsers}} {
			for _, id := range l.list {
				if ok, want := userIDForm(name, id); !ok {
					bad(prefix+l.key, fmt.Sprintf("%q", id), want)
				}
			}
		}
	}
	httpURL("gateway.platforms.telegram.webhook_url", p.Telegram.WebhookURL)
	listen("gateway.platforms.telegram.webhook_listen", p.Telegram.WebhookListen)
	if v := p.Telegram.WebhookSecret; v != "" && (len(v) > 256 || !onlyOf(v, wordChars+"-")) {
		bad("gateway.platforms.telegram.webhook_secret", "this secret", "1 to 256 letters, digits, _ and -, as Telegram allows")
	}
	if v := p.Slack.Mode; v != "" && !slices.Contains(slackModes, v) {
		bad("gateway.platforms.slack.mode", fmt.Sprintf("%q", v), "one of "+strings.Join(slackModes, ", "))
	}
	listen("gateway.platforms.slack.events_listen", p.Slack.EventsListen)
	if len(problems) == 0 {
		return nil
	}
	slices.SortStableFunc(problems, func(a, b problem) int { return a.line - b.line })
	texts := make([]string, len(problems))
	for i, p := range problems {
		texts[i] = p.text
	}
	return errors.New(strings.Join(texts, "\n"))
}

// CheckGateway returns what keeps the chat platforms config enables from
// starting, one line per problem (CheckPlatform's); nil when they can
// all start. Load does not refuse these: a shell without the bot's token
// still runs hermes chat.
func (c *Config) CheckGateway() error {
	var texts []string
	for _, name := range GatewayPlatformNames() {
		if err := c.CheckPlatform(name); err != nil {
			texts = append(texts, err.Error())
		}
	}
	if len(texts) == 0 {
		return nil
	}
	return errors.New(strings.Join(texts, "\n"))
}

// CheckPlatform returns what keeps a platform from starting: a ${VAR}
// its settings name that is not set, or an enabled platform without the
// token(s) it needs. A platform set to enabled: false has no problems.
func (c *Config) CheckPlatform(name string) error {
	p := &c.Gateway.Platforms
	s := p.Settings(name)
	if s == nil {
		return fmt.Errorf("no platform %q (platforms: %s)", name, strings.Join(GatewayPlatformNames(), ", "))
	}
	if s.Enabled != nil && !*s.Enabled {
		return nil
	}
	dotenv := filepath.Join(c.Home, ".env")
	prefix := "gateway.platforms." + name + "."
	var texts []string
	for _, key := range sortedKeys(c.Gateway.missing) {
		if strings.HasPrefix(key, prefix) {
			texts = append(texts, fmt.Sprintf("%s uses %s, which is not set (in the environment or %s)",
				key, strings.Join(c.Gateway.missing[key], ", "), dotenv))
		}
	}
	if !p.IsEnabled(name) {
		return joinProblems(texts)
	}
	need := func(key, value, what string) {
		if value == "" {
			texts = append(texts, fmt.Sprintf("%s is enabled but has no %s: set %s (in the environment or %s) or %s%s; hermes gateway setup %s writes them",
				name, what, GatewayVariable(name, key), dotenv, prefix, key, name))
		}
	}
	switch name {
	case "telegram":
		need("token", p.Telegram.Token, "bot token")
	case "slack":
		need("bot_token", p.Slack.BotToken, "bot token (xoxb-)")
		if p.Slack.Mode == "events" {
			need("signing_secret", p.Slack.SigningSecret, "signing secret for the Events API (mode: events)")
		} else {
			need("app_token", p.Slack.AppToken, "app-level token (xapp-) for socket mode")
		}
	case "discord":
		need("token", p.Discord.Token, "bot token")
	case "matrix":
		need("homeserver", p.Matrix.Homeserver, "homeserver URL")
		need("access_token", p.Matrix.AccessToken, "access token")
	case "email":
		need("imap_url", p.Email.IMAPURL, "IMAP server URL")
		need("smtp_url", p.Email.SMTPURL, "SMTP server URL")
		need("user", p.Email.User, "user to log in as")
		need("password", p.Email.Password, "password")
	case "signal":
		need("http_url", p.Signal.HTTPURL, "signal-cli daemon URL")
		need("account", p.Signal.Account, "account number")
	case "mattermost":
		need("url", p.Mattermost.URL, "server URL")
		need("token", p.Mattermost.Token, "bot token")
	}
	return joinProblems(texts)
}

func joinProblems(texts []string) error {
	if len(texts) == 0 {
		return nil
	}
	return errors.New(strings.Join(texts, "; "))
}
