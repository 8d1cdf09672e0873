package config

import (
	"slices"
	"strings"
	"time"
)

// Gateway holds gateway.* keys: what hermes gateway serves.
type Gateway struct {
	APIServer APIServer `yaml:"api_server"`
	// Platforms are the chat platforms, each enabled by its token.
	Platforms Platforms `yaml:"platforms"`
	// GroupSessionsPerUser gives each person in a group chat a
	// conversation of their own (default true); false: one per group, or
	// per thread.
	GroupSessionsPerUser *bool `yaml:"group_sessions_per_user"`
	// MaxConcurrentTurns bounds the turns running at once over every chat
	// (default 10); the others wait in their chat's queue.
	MaxConcurrentTurns int `yaml:"max_concurrent_turns"`

	// missing lists, by key, the ${VAR} references of the file that name
	// variables not set; CheckGateway reports them.
	missing map[string][]string
	// fromEnv names, by key, the environment variable that set it.
	fromEnv map[string]string
}

// Platforms holds gateway.platforms.*: one block per chat platform.
type Platforms struct {
	Telegram   Telegram   `yaml:"telegram"`
	Slack      Slack      `yaml:"slack"`
	Discord    Discord    `yaml:"discord"`
	Matrix     Matrix     `yaml:"matrix"`
	Email      Email      `yaml:"email"`
	Signal     Signal     `yaml:"signal"`
	Mattermost Mattermost `yaml:"mattermost"`
}

// GatewayPlatformNames are the chat platforms this build has, in the
// order every listing uses.
func GatewayPlatformNames() []string {
	return []string{"telegram", "slack", "discord", "matrix", "email", "signal", "mattermost"}
}

// Platform holds the settings every chat platform has.
type Platform struct {
	// Enabled runs the platform; nil means it runs when its token is set.
	Enabled *bool `yaml:"enabled"`
	// AllowedUsers are the platform's user ids that may talk to the bot
	// (TELEGRAM_ALLOWED_USERS and the like, comma-separated, win); anyone
	// else gets a pairing code and nothing reaches the model.
	AllowedUsers []string `yaml:"allowed_users"`
	// AdminUsers may also use every slash command (others get the safe
	// set) and answer "always" to an approval; they are allowed users.
	AdminUsers []string `yaml:"admin_users"`
	// AllowAll lets every user of the platform talk to the bot.
	AllowAll bool `yaml:"allow_all"`
	// APIURL is the platform's API base (TELEGRAM_API_URL and the like
	// win); empty means the platform's own.
	APIURL string `yaml:"api_url"`
	// RequireMention makes the bot answer in groups only when mentioned
	// or replied to (nil: true); Channels overrides it per channel.
	RequireMention *bool              `yaml:"require_mention"`
	Channels       map[string]Channel `yaml:"channels"`
	// HomeChannel is the chat that messages with no origin go to (a
	// cron job's or a webhook run's answer delivered to the platform
	// alone): "CHAT" or "CHAT:THREAD" (TELEGRAM_HOME_CHANNEL and the like
	// win). /sethome in a chat overrides it.
	HomeChannel string `yaml:"home_channel"`
}

// Channel holds gateway.platforms.<name>.channels.<id>.*.
type Channel struct {
	RequireMention *bool `yaml:"require_mention"`
}

// Telegram holds gateway.platforms.telegram.*.
type Telegram struct {
	Platform `yaml:",inline"`
	// Token is the bot's token from @BotFather (TELEGRAM_BOT_TOKEN wins).
	Token string `yaml:"token"`
	// WebhookURL switches from long polling to a webhook: the public
	// HTTPS URL Telegram posts updates to (TELEGRAM_WEBHOOK_URL wins).
	// The gateway listens on WebhookListen (default 127.0.0.1:8443)
	// behind the proxy that serves it; Telegram sends WebhookSecret in
	// every request.
	WebhookURL    string `yaml:"webhook_url"`
	WebhookListen string `yaml:"webhook_listen"`
	WebhookSecret string `yaml:"webhook_secret"`
}

// Slack holds gateway.platforms.slack.*.
type Slack struct {
	Platform `yaml:",inline"`
	// BotToken (xoxb-, SLACK_BOT_TOKEN wins) is needed in both modes.
	BotToken string `yaml:"bot_token"`
	// Mode is socket (default: a websocket opened with AppToken, xapp-,
	// SLACK_APP_TOKEN) or events (the Events API posting to
	// EventsListen, default 127.0.0.1:3000, requests checked with
	// SigningSecret, SLACK_SIGNING_SECRET).
	Mode          string `yaml:"mode"`
	AppToken      string `yaml:"app_token"`
	SigningSecret string `yaml:"signing_secret"`
	EventsListen  string `yaml:"events_listen"`
}

// Discord holds gateway.platforms.discord.*.
type Discord struct {
	Platform `yaml:",inline"`
	// Token is the bot's token (DISCORD_BOT_TOKEN wins).
	Token string `yaml:"token"`
}

// Matrix holds gateway.platforms.matrix.*: a bot account on a
// homeserver, logged in by access token.
type Matrix struct {
	Platform `yaml:",inline"`
	// Homeserver is the homeserver's URL, https://matrix.example.org
	// (MATRIX_HOMESERVER wins).
	Homeserver string `yaml:"homeserver"`
	// AccessToken is the bot account's token (MATRIX_ACCESS_TOKEN wins).
	AccessToken string `yaml:"access_token"`
}

// Email holds gateway.platforms.email.*: a mailbox read over IMAP and
// answered over SMTP. Its allowed_users are sender addresses.
type Email struct {
	Platform `yaml:",inline"`
	// IMAPURL is imaps://host[:993] (or imap://host:143, upgraded with
	// STARTTLS) (EMAIL_IMAP_URL wins); SMTPURL is smtps://host[:465] or
	// smtp://host:587 (STARTTLS) (EMAIL_SMTP_URL wins).
	IMAPURL string `yaml:"imap_url"`
	SMTPURL string `yaml:"smtp_url"`
	// User and Password log in to both (EMAIL_USER, EMAIL_PASSWORD win).
	User     string `yaml:"user"`
	Password string `yaml:"password"`
	// Address is the bot's own address, the From of its replies
	// (default User).
	Address string `yaml:"address"`
	// Folder is the folder watched (default INBOX).
	Folder string `yaml:"folder"`
	// PollInterval is how often a server without IDLE is asked for new
	// mail, in seconds (default 60).
	PollInterval int `yaml:"poll_interval"`
}

// Signal holds gateway.platforms.signal.*: a signal-cli daemon's HTTP
// interface (signal-cli daemon --http), JSON-RPC to send, server-sent
// events to receive.
type Signal struct {
	Platform `yaml:",inline"`
	// HTTPURL is the daemon's address, http://127.0.0.1:8080
	// (SIGNAL_HTTP_URL wins).
	HTTPURL string `yaml:"http_url"`
	// Account is the bot's number, +15551234567 (SIGNAL_ACCOUNT wins).
	Account string `yaml:"account"`
}

// Mattermost holds gateway.platforms.mattermost.*: a bot account's
// token on a Mattermost server (REST API and websocket).
type Mattermost struct {
	Platform `yaml:",inline"`
	// URL is the server, https://mattermost.example.com (MATTERMOST_URL
	// wins).
	URL string `yaml:"url"`
	// Token is the bot's access token (MATTERMOST_TOKEN wins).
	Token string `yaml:"token"`
	// ActionsListen is where the approval buttons' endpoint listens
	// (default: a free port on 127.0.0.1); ActionsURL is its URL as the
	// server reaches it, when not http://ActionsListen (a public URL
	// behind a proxy; it needs a fixed ActionsListen).
	ActionsListen string `yaml:"actions_listen"`
	ActionsURL    string `yaml:"actions_url"`
}

// Default listen addresses of the platforms' webhooks.
const (
	DefaultTelegramWebhookListen = "127.0.0.1:8443"
	DefaultSlackEventsListen     = "127.0.0.1:3000"
)

// Settings returns the settings a platform shares with the others; nil
// for a name that is no platform.
func (p *Platforms) Settings(name string) *Platform {
	switch name {
	case "telegram":
		return &p.Telegram.Platform
	case "slack":
		return &p.Slack.Platform
	case "discord":
		return &p.Discord.Platform
	case "matrix":
		return &p.Matrix.Platform
	case "email":
		return &p.Email.Platform
	case "signal":
		return &p.Signal.Platform
	case "mattermost":
		return &p.Mattermost.Platform
	}
	return nil
}

// token is the token whose presence enables a platform.
func (p *Platforms) token(name string) string {
	switch name {
	case "telegram":
		return p.Telegram.Token
	case "slack":
		return p.Slack.BotToken
	case "discord":
		return p.Discord.Token
	case "matrix":
		return p.Matrix.AccessToken
	case "email":
		return p.Email.Password
	case "signal":
		return p.Signal.Account
	case "mattermost":
		return p.Mattermost.Token
	}
	return ""
}

// IsEnabled reports whether a platform runs: enabled: true, or its token
// set and enabled not false.
func (p *Platforms) IsEnabled(name string) bool {
	s := p.Settings(name)
	if s == nil {
		return false
	}
	if s.Enabled != nil {
		return *s.Enabled
	}
	return p.token(name) != ""
}

// GatewayPlatforms returns the chat platforms config enables, in the
// order of GatewayPlatformNames.
func (c *Config) GatewayPlatforms() []string {
	var out []string
	for _, name := range GatewayPlatformNames() {
		if c.Gateway.Platforms.IsEnabled(name) {
			out = append(out, name)
		}
	}
	return out
}

// IsAdmin reports whether user is one of the platform's admins.
func (p *Platform) IsAdmin(user string) bool { return slices.Contains(p.AdminUsers, user) }

// IsAllowed reports whether config lets user talk to the bot: allow_all,
// or the user is an allowed user or an admin. (Users approved by pairing
// are in the gateway's store, not here.)
func (p *Platform) IsAllowed(user string) bool {
	return p.AllowAll || slices.Contains(p.AllowedUsers, user) || p.IsAdmin(user)
}

// MentionRequired reports whether, in the group chat or channel id, the
// bot answers only when mentioned or replied to: the channel's setting,
// else the platform's, else true.
func (p *Platform) MentionRequired(channel string) bool {
	if ch, ok := p.Channels[channel]; ok && ch.RequireMention != nil {
		return *ch.RequireMention
	}
	if p.RequireMention != nil {
		return *p.RequireMention
	}
	return true
}

// Streaming holds streaming.* keys: replies in chat platforms grow in
// one message, edited as the answer streams.
type Streaming struct {
	// Enabled streams by edits (default true); false sends the answer
	// when it is complete.
	Enabled *bool `yaml:"enabled"`
	// EditInterval is the least time between two edits of a message
	// (seconds, default 0.8).
	EditInterval float64 `yaml:"edit_interval"`
}

// Interval is EditInterval as a Duration.
func (s Streaming) Interval() time.Duration {
	return time.Duration(s.EditInterval * float64(time.Second))
}

// SplitChat splits a platform's "CHAT[:THREAD]" (a home channel, a cron
// delivery target) into the chat and the thread. The thread follows the
// first colon, except on Matrix, whose room ids hold one themselves
// (!opaque:server.org, with a port perhaps): there it is the last part,
// when that is an event id ($...).
func SplitChat(platform, v string) (chat, thread string) {
	if platform == "matrix" {
		if i := strings.LastIndex(v, ":"); i >= 0 && strings.HasPrefix(v[i+1:], "$") {
			return v[:i], v[i+1:]
		}
		return v, ""
	}
	chat, thread, _ = strings.Cut(v, ":")
	return chat, thread
}
