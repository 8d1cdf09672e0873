package discord

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/bwmarrin/discordgo"
	"github.com/gorilla/websocket"

	"github.com/hermes-go/hermes/gateway"
)

// DefaultAPIURL is Discord's own base URL.
const DefaultAPIURL = "https://discord.com"

// DefaultIntents are the gateway intents the adapter asks for: guilds
// (threads and channels), guild and direct messages, and the privileged
// message content intent (without it Discord sends guild messages that
// do not mention the bot with empty content).
const DefaultIntents = discordgo.IntentsGuilds | discordgo.IntentsGuildMessages |
	discordgo.IntentsDirectMessages | discordgo.IntentsMessageContent

// Options configure an Adapter.
type Options struct {
	// Token is the bot token (with or without the "Bot " prefix).
	Token string
	// APIURL is where the REST calls Discord's library makes to
	// https://discord.com go instead (a fake in tests, a proxy); the
	// gateway's websocket URL comes from its GET /api/v9/gateway answer.
	// Empty: DefaultAPIURL.
	APIURL string
	// HTTPClient makes the REST calls and downloads attachments; nil: a
	// client with timeouts.
	HTTPClient *http.Client
	// Logger gets what the adapter logs (discordgo's own logging is
	// off); nil: discarded.
	Logger *slog.Logger
	// KV keeps the last message seen in each recent channel, to catch up
	// on what was said while the gateway was down; nil: kept in memory.
	KV gateway.KV
	// Now is the clock of State.Since; nil: time.Now.
	Now func() time.Time
	// Backoff is the first wait before reconnecting; it doubles on each
	// failure up to MaxBackoff. Zero: 1 s.
	Backoff time.Duration
	// MaxBackoff caps the wait between attempts. Zero: 2 minutes.
	MaxBackoff time.Duration
	// HeartbeatTimeout is how long the gateway may leave a heartbeat
	// unacknowledged before the socket is declared dead and replaced:
	// the adapter sends a heartbeat of its own every HeartbeatTimeout and
	// checks that it was answered by the next. Zero: 15 s. Keep it under
	// 2.5 heartbeat intervals (Discord's is 41.25 s), so the adapter, not
	// discordgo's slower check (five intervals), finds a dead socket and
	// names the reason.
	HeartbeatTimeout time.Duration
	// Intents are the gateway intents; zero: DefaultIntents.
	Intents discordgo.Intent
}

// Adapter is Discord for the gateway: it implements gateway.Adapter on a
// discordgo session.
type Adapter struct {
	o        Options
	log      *slog.Logger
	hc       *http.Client
	s        *discordgo.Session
	kv       gateway.KV
	channels *channelCache
	seen     *lastSeen
	seq      atomic.Int64 // the last event sequence, for the watchdog's heartbeats
	running  atomic.Bool
	dropped  chan struct{} // a socket of this session closed
	menu     menu
	echoes   echoes

	mu      sync.Mutex
	h       gateway.Handler
	ctx     context.Context // Run's
	me      *discordgo.User
	raw     *rawConn // the socket being dialled or in use
	reason  string   // why the adapter closed the socket itself
	last    gateway.State
	stopped bool
}

// New makes an Adapter; it connects in Run.
func New(o Options) (*Adapter, error) {
	token := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(o.Token), "Bot "))
	if token == "" {
		return nil, errors.New("discord: a bot token is needed")
	}
	if o.APIURL == "" {
		o.APIURL = DefaultAPIURL
	}
	base, err := url.Parse(strings.TrimRight(o.APIURL, "/"))
	if err != nil || (base.Scheme != "http" && base.Scheme != "https") || base.Host == "" {
		return nil, errors.New("discord: APIURL must be an http(s) URL, got " + o.APIURL)
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Backoff <= 0 {
		o.Backoff = time.Second
	}
	if o.MaxBackoff <= 0 {
		o.MaxBackoff = 2 * time.Minute
	}
	if o.MaxBackoff < o.Backoff {
		o.MaxBackoff = o.Backoff
	}
	if o.HeartbeatTimeout <= 0 {
		o.HeartbeatTimeout = 15 * time.Second
	}
	if o.Intents == 0 {
		o.Intents = DefaultIntents
	}
	a := &Adapter{
		o:        o,
		log:      o.Logger,
		kv:       o.KV,
		channels: newChannelCache(channelCacheSize),
		dropped:  make(chan struct{}, 1),
	}
	if a.log == nil {
		a.log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	if a.kv == nil {
		a.kv = gateway.NewMemoryKV()
	}
	a.seen = newLastSeen(a.kv, a.log)
	a.hc = rewritingClient(o.HTTPClient, base)
	a.s = a.newSession("Bot " + token)
	return a, nil
}

// newSession configures discordgo: no retries and no sleeping on a 429
// (the gateway's ledger waits), no reconnecting of its own (Run does it,
// with backoff, and can stop), events handled in order on its reading
// goroutine, no state cache (the adapter keeps the little it needs).
func (a *Adapter) newSession(token string) *discordgo.Session {
	s, _ := discordgo.New(token) // New fails never; it only fills a struct
	s.Client = a.hc
	s.ShouldRetryOnRateLimit = false
	s.MaxRestRetries = 0
	s.ShouldReconnectOnError = false
	s.ShouldReconnectVoiceOnSessionError = false
	s.SyncEvents = true
	s.StateEnabled = false
	s.Compress = false
	s.Identify.Compress = false
	s.Identify.Intents = a.o.Intents
	s.LogLevel = -1 // discordgo logs through the package logger; the adapter logs what matters
	s.Dialer = &websocket.Dialer{
		Proxy:            http.ProxyFromEnvironment,
		HandshakeTimeout: handshakeTimeout,
		NetDialContext:   a.dial,
	}
	s.AddHandler(a.onReady)
	s.AddHandler(a.onResumed)
	s.AddHandler(a.onDisconnect)
	s.AddHandler(a.onEvent)
	s.AddHandler(a.onMessage)
	s.AddHandler(a.onInteraction)
	s.AddHandler(a.onThreadCreate)
	s.AddHandler(a.onThreadUpdate)
	s.AddHandler(a.onGuildCreate)
	return s
}

// Platform is "discord".
func (a *Adapter) Platform() string { return "discord" }

// Limits: 2,000 characters a message, Discord's markdown, editable
// messages, custom_id up to 100 characters.
func (a *Adapter) Limits() gateway.Limits {
	return gateway.Limits{MaxText: 2000, Format: "markdown", Edits: true, MaxButtonData: 100}
}
