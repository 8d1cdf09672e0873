package cli

import (
	"bufio"
	"cmp"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"unicode"

	"github.com/spf13/cobra"

	"github.com/hermes-go/hermes/app"
	"github.com/hermes-go/hermes/config"
	"github.com/hermes-go/hermes/gateway/signal"
)

// setupFlags are hermes gateway setup's flags; for a script, with
// --non-interactive, they are the answers.
type setupFlags struct {
	nonInteractive                 bool
	token, appToken, signingSecret string
	allowed, admins                string
	url                            string
	homeserver                     string
	imapURL, smtpURL, user         string // email
}

// setupGuide says, before the questions, where a platform's answers are.
func setupGuide(platform string) string {
	switch platform {
	case "telegram":
		return `Telegram: talk to @BotFather, send /newbot, choose a name and a username ending in "bot";
it answers with the bot's token. Your user id is a number: @userinfobot tells it.
`
	case "slack":
		return `Slack: create an app at https://api.slack.com/apps. For Socket Mode (the default): enable Socket
Mode and make an app-level token with connections:write (xapp-...). Bot token scopes: chat:write,
im:history, channels:history, groups:history, app_mentions:read, files:read, files:write; events:
message.im, message.channels, message.groups, app_mention; enable Interactivity. Install it to the
workspace for the bot token (xoxb-...). Member ids (U...) are under a profile's "Copy member ID".
`
	case "mattermost":
		return `Mattermost: in System Console > Integrations > Bot Accounts enable bot accounts, then in
Integrations > Bot Accounts add one and copy its access token; add the bot to the teams and channels it
serves. For the approval buttons the server posts to the gateway: on the same host, add 127.0.0.1 to
Developer > AllowedUntrustedInternalConnections. User ids: System Console > Users, or the API.
`
	case "discord":
		return `Discord: create an application at https://discord.com/developers/applications; on its Bot page
reset the token and turn on the Message Content intent; invite it with the bot and
applications.commands scopes (Send Messages, Send Messages in Threads, Read Message History,
Attach Files). User ids: turn on Developer Mode, then right-click a user, Copy User ID.
`
	case "matrix":
		return `Matrix: register an account for the bot on your homeserver and log in with it once (in Element:
Settings, Help & About, Access Token; or POST /_matrix/client/v3/login). Use that token, not your own.
User ids look like @alice:example.org. Encrypted rooms are not supported: invite the bot to rooms
without end-to-end encryption; it joins the invites of allowed users.
`
	case "email":
		return `Email: give the bot a mailbox of its own (every mail in its folder is read as written to the bot).
Your provider's settings name the IMAP server (imaps://imap.example.org, port 993) and the SMTP
server (smtps://smtp.example.org:465, or smtp://smtp.example.org:587 with STARTTLS); the user and
password log in to both (with 2-step verification, an app password). User ids are addresses.
`
	case "signal":
		return `Signal: register a number for the bot with signal-cli (signal-cli -a +15551234567 register, then
verify; or link it to a phone with signal-cli link), then keep its daemon running:
signal-cli -a +15551234567 daemon --http 127.0.0.1:8080. User ids are numbers in international
form (+15557654321), or an account's UUID.
`
	}
	return ""
}

func newGatewaySetupCmd(e *env) *cobra.Command {
	f := &setupFlags{}
	c := &cobra.Command{
		Use:   "setup telegram|slack|discord|matrix|email|signal|mattermost",
		Short: "Ask for a platform's tokens and users, write the tokens to .env and the platform to config.yaml",
		Long: "hermes gateway setup asks for the bot's token(s) (not echoed on a terminal), the user ids allowed to\n" +
			"talk to it and the admins among them, then writes the tokens to $HERMES_HOME/.env (private) and\n" +
			"gateway.platforms.PLATFORM to config.yaml, which reads them as ${VAR}; the rest of config.yaml\n" +
			"stays as it is, comments included. Answers given as flags are not asked; with --non-interactive\n" +
			"nothing is asked and --token (for Slack also --app-token, or --signing-secret for the Events\n" +
			"API) is required.",
		Example: "  hermes gateway setup telegram\n" +
			"  hermes gateway setup telegram --non-interactive --token \"$TOKEN\" --allowed-users 123456789 --admin-users 123456789\n" +
			"  hermes gateway setup slack --non-interactive --token xoxb-... --app-token xapp-... --allowed-users U012ABCDEF\n" +
			"  hermes gateway setup matrix --non-interactive --homeserver https://matrix.example.org --token syt_... --allowed-users @alice:example.org\n" +
			"  hermes gateway setup email --non-interactive --imap-url imaps://imap.example.org --smtp-url smtps://smtp.example.org \\\n" +
			"      --user bot@example.org --token \"$PASSWORD\" --allowed-users alice@example.org",
		Args:      cobra.ExactArgs(1),
		ValidArgs: config.GatewayPlatformNames(),
		RunE: func(cmd *cobra.Command, args []string) error {
			if !slices.Contains(config.GatewayPlatformNames(), args[0]) {
				return &exitError{code: exitUsage, err: fmt.Errorf("no platform %q: hermes gateway setup %s", args[0], strings.Join(config.GatewayPlatformNames(), "|"))}
			}
			return runGatewaySetup(cmd, e, f, args[0])
		},
	}
	fl := c.Flags()
	fl.BoolVar(&f.nonInteractive, "non-interactive", false, "ask nothing: the flags are the answers")
	fl.StringVar(&f.token, "token", "", "the bot token (Slack: xoxb-...; Signal: the bot's number)")
	fl.StringVar(&f.appToken, "app-token", "", "Slack: the app-level token for Socket Mode (xapp-...)")
	fl.StringVar(&f.signingSecret, "signing-secret", "", "Slack: the signing secret, for the Events API instead of Socket Mode")
	fl.StringVar(&f.url, "url", "", "Mattermost: the server's URL (https://mattermost.example.com); Signal: the signal-cli daemon's (default "+signal.DefaultHTTPURL+")")
	fl.StringVar(&f.homeserver, "homeserver", "", "Matrix: the homeserver's URL, https://matrix.example.org (--token is the bot's access token)")
	fl.StringVar(&f.imapURL, "imap-url", "", "email: the IMAP server, imaps://host or imap://host (STARTTLS)")
	fl.StringVar(&f.smtpURL, "smtp-url", "", "email: the SMTP server, smtps://host or smtp://host:587 (STARTTLS)")
	fl.StringVar(&f.user, "user", "", "email: the user logging in to both (the password is --token)")
	fl.StringVar(&f.allowed, "allowed-users", "", "user ids allowed to talk to the bot, comma-separated (default: none, pairing only)")
	fl.StringVar(&f.admins, "admin-users", "", "user ids that may use every command, comma-separated (asked: default the allowed users; --non-interactive: none)")
	return c
}

// setupAnswers is what setup writes.
type setupAnswers struct {
	vars     map[string]string // into .env
	settings []config.Setting  // into config.yaml
	allowed  []string
	admins   []string
}

func runGatewaySetup(cmd *cobra.Command, e *env, f *setupFlags, platform string) error {
	cfg, err := loadPlainConfig(e)
	if err != nil {
		return err
	}
	flags := cmd.Flags()
	if flags.Changed("app-token") && flags.Changed("signing-secret") {
		return &exitError{code: exitUsage, err: errors.New("--app-token (Socket Mode) and --signing-secret (Events API) choose different modes: give one")}
	}
	ask := &asker{e: e, in: bufio.NewReader(e.stdin), interactive: !f.nonInteractive}
	if ask.interactive {
		fmt.Fprint(e.stderr, setupGuide(platform), "\n")
	}
	a, err := askSetup(ask, flags.Changed, f, platform)
	if err != nil {
		return err
	}
	cfgPath := filepath.Join(cfg.Home, "config.yaml")
	envPath := filepath.Join(cfg.Home, ".env")
	if err := config.SetGatewayPlatform(cfgPath, platform, a.settings...); err != nil {
		return &exitError{code: exitFailed, err: err}
	}
	if err := config.SetDotEnv(envPath, a.vars); err != nil {
		return &exitError{code: exitFailed, err: err}
	}
	names := slices.Sorted(maps.Keys(a.vars))
	fmt.Fprintf(e.stdout, "Wrote %s to %s (readable by you only).\n", strings.Join(names, " and "), envPath)
	fmt.Fprintf(e.stdout, "Wrote gateway.platforms.%s to %s.\n", platform, cfgPath)
	if len(a.allowed) == 0 && len(a.admins) == 0 {
		fmt.Fprintf(e.stdout, "Nobody is allowed yet: whoever writes to the bot gets a pairing code; let them in with\n  hermes pairing approve %s CODE\n", platform)
	}
	fmt.Fprintf(e.stdout, "Run it with\n  hermes gateway\nand check it with\n  hermes gateway status\n")
	warnOverrides(e, cfg, platform, a)
	return nil
}

// warnOverrides says which variables of the environment win over what
// setup wrote, and what still keeps the platform from starting.
func warnOverrides(e *env, before *config.Config, platform string, a setupAnswers) {
	for _, k := range slices.Sorted(maps.Keys(a.vars)) {
		if v := e.getenv(k); v != "" && v != a.vars[k] {
			e.warn(fmt.Sprintf("%s is set in the environment to another value, which wins over %s", k, filepath.Join(before.Home, ".env")))
		}
	}
	for _, key := range []string{"allowed_users", "admin_users"} {
		name := config.GatewayVariable(platform, key)
		if dot, _ := config.LoadDotEnv(filepath.Join(before.Home, ".env")); e.getenv(name) != "" || dot[name] != "" {
			e.warn(fmt.Sprintf("%s is set (in the environment or .env) and wins over gateway.platforms.%s.%s", name, platform, key))
		}
	}
	cfg, err := app.LoadConfig(e.getenv)
	if err != nil {
		e.warn(err)
		return
	}
	if err := cfg.CheckPlatform(platform); err != nil {
		e.warn(err)
	}
}

// askSetup gathers a platform's answers: from its flags (changed says
// which were given), else by asking.
func askSetup(ask *asker, changed func(string) bool, f *setupFlags, platform string) (setupAnswers, error) {
	a := setupAnswers{vars: map[string]string{}}
	secret := func(flag, value, question, env string, required bool, check func(string) error) (string, error) {
		v, err := ask.value(flag, value, changed(flag), question, true, required, check)
		if err == nil && v != "" {
			a.vars[env] = v
		}
		return v, err
	}
	ref := func(env string) string { return "${" + env + "}" }
	a.settings = append(a.settings, config.Setting{Key: "enabled", Value: true})
	switch platform {
	case "telegram":
		if _, err := secret("token", f.token, "Bot token (from @BotFather)", "TELEGRAM_BOT_TOKEN", true,
			func(s string) error {
				id, key, ok := strings.Cut(s, ":")
				if !ok || id == "" || key == "" || strings.Trim(id, "0123456789") != "" || strings.ContainsFunc(key, notTokenChar) {
					return errors.New("a Telegram bot token looks like 123456789:AA... (digits, a colon, then letters)")
				}
				return nil
			}); err != nil {
			return a, err
		}
		a.settings = append(a.settings, config.Setting{Key: "token", Value: ref("TELEGRAM_BOT_TOKEN")})
	case "discord":
		if _, err := secret("token", f.token, "Bot token (the application's Bot page)", "DISCORD_BOT_TOKEN", true,
			oneWord("a Discord bot token is one word")); err != nil {
			return a, err
		}
		a.settings = append(a.settings, config.Setting{Key: "token", Value: ref("DISCORD_BOT_TOKEN")})
	case "matrix":
		hs, err := ask.value("homeserver", f.homeserver, changed("homeserver"), "Homeserver URL (https://matrix.example.org)", false, true,
			func(s string) error {
				if u, err := url.Parse(s); err != nil || u.Scheme != "http" && u.Scheme != "https" || u.Host == "" {
					return errors.New("the homeserver is an http or https URL, such as https://matrix.example.org")
				}
				return nil
			})
		if err != nil {
			return a, err
		}
		if _, err := secret("token", f.token, "The bot account's access token", "MATRIX_ACCESS_TOKEN", true,
			oneWord("an access token is one word")); err != nil {
			return a, err
		}
		a.settings = append(a.settings, config.Setting{Key: "homeserver", Value: hs},
			config.Setting{Key: "access_token", Value: ref("MATRIX_ACCESS_TOKEN")})
	case "email":
		for _, q := range []struct{ flag, value, key, question, scheme string }{
			{"imap-url", f.imapURL, "imap_url", "IMAP server (imaps://imap.example.org, or imap://host upgraded with STARTTLS)", "imap"},
			{"smtp-url", f.smtpURL, "smtp_url", "SMTP server (smtps://smtp.example.org, or smtp://host:587 upgraded with STARTTLS)", "smtp"},
		} {
			v, err := ask.value(q.flag, q.value, changed(q.flag), q.question, false, true, func(s string) error {
				if !strings.HasPrefix(s, q.scheme+"://") && !strings.HasPrefix(s, q.scheme+"s://") {
					return fmt.Errorf("the URL starts with %s:// or %ss://", q.scheme, q.scheme)
				}
				return nil
			})
			if err != nil {
				return a, err
			}
			a.settings = append(a.settings, config.Setting{Key: q.key, Value: v})
		}
		user, err := ask.value("user", f.user, changed("user"), "User logging in to both (often the bot's address)", false, true, oneWord("the user is one word"))
		if err != nil {
			return a, err
		}
		a.settings = append(a.settings, config.Setting{Key: "user", Value: user})
		if _, err := secret("token", f.token, "Password (an app password where the provider has them)", "EMAIL_PASSWORD", true,
			func(s string) error { return nil }); err != nil {
			return a, err
		}
		a.settings = append(a.settings, config.Setting{Key: "password", Value: ref("EMAIL_PASSWORD")})
	case "signal":
		// Nothing secret: the daemon holds the account's keys.
		account, err := ask.value("token", f.token, changed("token"), "The bot's Signal number, registered in signal-cli (+15551234567)", false, true,
			func(s string) error { return config.ValidUserID("signal", s) })
		if err != nil {
			return a, err
		}
		url, err := ask.value("url", f.url, changed("url"), "The signal-cli daemon's HTTP address (Enter: "+signal.DefaultHTTPURL+")", false, false,
			func(s string) error {
				if s != "" && !strings.HasPrefix(s, "http://") && !strings.HasPrefix(s, "https://") {
					return errors.New("the daemon's address is a URL such as " + signal.DefaultHTTPURL)
				}
				return nil
			})
		if err != nil {
			return a, err
		}
		a.settings = append(a.settings, config.Setting{Key: "account", Value: account},
			config.Setting{Key: "http_url", Value: cmp.Or(url, signal.DefaultHTTPURL)})
	case "mattermost":
		u, err := ask.value("url", f.url, changed("url"), "Server URL (https://mattermost.example.com)", false, true,
			func(s string) error {
				if p, err := url.Parse(s); err != nil || (p.Scheme != "http" && p.Scheme != "https") || p.Host == "" {
					return errors.New("the server URL starts with https:// (or http://)")
				}
				return nil
			})
		if err != nil {
			return a, err
		}
		if _, err := secret("token", f.token, "Bot access token (Integrations > Bot Accounts)", "MATTERMOST_TOKEN", true,
			oneWord("a Mattermost token is one word")); err != nil {
			return a, err
		}
		a.settings = append(a.settings, config.Setting{Key: "url", Value: strings.TrimRight(u, "/")},
			config.Setting{Key: "token", Value: ref("MATTERMOST_TOKEN")})
	case "slack":
		if _, err := secret("token", f.token, "Bot token (xoxb-..., OAuth & Permissions)", "SLACK_BOT_TOKEN", true, prefixed("xoxb-", "the bot token")); err != nil {
			return a, err
		}
		a.settings = append(a.settings, config.Setting{Key: "bot_token", Value: ref("SLACK_BOT_TOKEN")})
		mode := ""
		switch {
		case changed("app-token"):
			mode = "socket"
		case changed("signing-secret"):
			mode = "events"
		case !ask.interactive:
			return a, &exitError{code: exitUsage, err: errors.New("--app-token (Socket Mode) or --signing-secret (the Events API) is required with --non-interactive")}
		}
		if mode != "events" {
			app, err := secret("app-token", f.appToken, "App-level token for Socket Mode (xapp-...; empty to use the Events API)", "SLACK_APP_TOKEN", mode == "socket",
				func(s string) error {
					if s == "" {
						return nil // the Events API instead
					}
					return prefixed("xapp-", "the app-level token")(s)
				})
			if err != nil {
				return a, err
			}
			if app != "" {
				a.settings = append(a.settings, config.Setting{Key: "mode", Value: "socket"}, config.Setting{Key: "app_token", Value: ref("SLACK_APP_TOKEN")})
				break
			}
		}
		if _, err := secret("signing-secret", f.signingSecret, "Signing secret (Basic Information), for the Events API", "SLACK_SIGNING_SECRET", true,
			oneWord("the signing secret is one word")); err != nil {
			return a, err
		}
		a.settings = append(a.settings, config.Setting{Key: "mode", Value: "events"}, config.Setting{Key: "signing_secret", Value: ref("SLACK_SIGNING_SECRET")})
	}
	ids := func(s string) error {
		for _, id := range splitIDs(s) {
			if err := config.ValidUserID(platform, id); err != nil {
				return err
			}
		}
		return nil
	}
	allowed, err := ask.value("allowed-users", f.allowed, changed("allowed-users") || !ask.interactive,
		"User ids allowed to talk to the bot, comma-separated (empty: none, pairing only)", false, false, ids)
	if err != nil {
		return a, err
	}
	a.allowed = splitIDs(allowed)
	question := "Admin user ids, who may use every command (empty: none)"
	if len(a.allowed) > 0 {
		question = fmt.Sprintf("Admin user ids, who may use every command (Enter: %s; - for none)", strings.Join(a.allowed, ", "))
	}
	admins, err := ask.value("admin-users", f.admins, changed("admin-users") || !ask.interactive, question, false, false,
		func(s string) error { return ids(strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(s), "-"))) })
	if err != nil {
		return a, err
	}
	switch admins = strings.TrimSpace(admins); {
	case admins == "-":
		a.admins = nil
	case admins == "" && !changed("admin-users") && ask.interactive:
		a.admins = a.allowed
	default:
		a.admins = splitIDs(admins)
	}
	a.settings = append(a.settings,
		config.Setting{Key: "allowed_users", Value: nonNil(a.allowed)}, config.Setting{Key: "admin_users", Value: nonNil(a.admins)})
	return a, nil
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

func splitIDs(s string) []string {
	var out []string
	for _, id := range strings.Split(s, ",") {
		if id = strings.TrimSpace(id); id != "" && !slices.Contains(out, id) {
			out = append(out, id)
		}
	}
	return out
}

// notTokenChar is a character no token holds.
func notTokenChar(r rune) bool {
	return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-')
}

func oneWord(want string) func(string) error {
	return func(s string) error {
		if s == "" || strings.ContainsFunc(s, unicode.IsSpace) {
			return errors.New(want)
		}
		return nil
	}
}

func prefixed(prefix, what string) func(string) error {
	return func(s string) error {
		if !strings.HasPrefix(s, prefix) || strings.ContainsFunc(s, unicode.IsSpace) {
			return fmt.Errorf("%s starts with %s", what, prefix)
		}
		return nil
	}
}

// asker puts setup's questions on stderr and reads the answers, one a
// line, from standard input: a terminal or a pipe.
type asker struct {
	e           *env
	in          *bufio.Reader
	interactive bool
}

// attempts is how often a question is put again after a wrong answer.
const attempts = 3

// value returns a flag's value when given, else (interactive) the
// answer to question, put again while check refuses it or a required
// answer is empty. A secret is read without echo on a terminal. Not
// interactive, a required flag not given is a usage error.
func (a *asker) value(flag, value string, given bool, question string, secret, required bool, check func(string) error) (string, error) {
	if given || !a.interactive {
		value = strings.TrimSpace(value)
		if value == "" && required {
			return "", &exitError{code: exitUsage, err: fmt.Errorf("--%s is required with --non-interactive", flag)}
		}
		if err := check(value); err != nil {
			return "", &exitError{code: exitUsage, err: fmt.Errorf("--%s: %w", flag, err)}
		}
		return value, nil
	}
	for i := 0; ; i++ {
		line, err := a.readLine(question, secret)
		if err != nil {
			return "", &exitError{code: exitUsage, err: fmt.Errorf("no answer to %q (standard input ended; in scripts use --non-interactive and --%s): %w", question, flag, err)}
		}
		line = strings.TrimSpace(line)
		if required && line == "" {
			err = errors.New("an answer is needed")
		} else {
			err = check(line)
		}
		if err == nil {
			return line, nil
		}
		if i+1 == attempts {
			return "", &exitError{code: exitUsage, err: err}
		}
		fmt.Fprintf(a.e.stderr, "%v; again.\n", err)
	}
}

// readLine puts question and reads one line; a secret without echo when
// standard input is a terminal (turned off before the question shows).
// The end of the input with nothing read is io.EOF.
func (a *asker) readLine(question string, secret bool) (string, error) {
	read := func() (string, error) {
		fmt.Fprintf(a.e.stderr, "%s: ", question)
		line, err := a.in.ReadString('\n')
		if err == io.EOF && line != "" {
			err = nil
		}
		return strings.TrimRight(line, "\r\n"), err
	}
	if f, ok := a.e.stdin.(*os.File); ok && isTerminal(f) {
		if secret {
			return withoutEcho(f, read)
		}
		return read()
	}
	// From a pipe nothing ends the question's line: end it here.
	defer fmt.Fprintln(a.e.stderr)
	return read()
}
