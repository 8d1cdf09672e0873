package telegram

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"
	"time"

	"github.com/go-telegram/bot"

	"github.com/hermes-go/hermes/gateway"
)

// DefaultAPIURL is the real Bot API.
const DefaultAPIURL = "https://api.telegram.org"

// Defaults of Options.
const (
	DefaultWebhookListen = "127.0.0.1:8443"
	DefaultBackoff       = time.Second
	DefaultMaxBackoff    = time.Minute
	DefaultPollTimeout   = 50 * time.Second
	DefaultAnswerTimeout = 5 * time.Second
)

const (
	callTimeout   = time.Minute     // a Bot API call other than getUpdates and uploads
	uploadTimeout = 5 * time.Minute // an upload of up to 50 MB
	pollGrace     = 15 * time.Second
)

// Options configure an Adapter. Only Token is required.
type Options struct {
	// Token is the bot's token from @BotFather.
	Token string
	// APIURL is the Bot API's base (default https://api.telegram.org):
	// requests go to APIURL/bot<token>/<method>, files are fetched from
	// APIURL/file/bot<token>/<path>.
	APIURL string
	// WebhookURL, when set, switches from long polling to a webhook: the
	// public https URL Telegram posts updates to. The adapter serves its
	// path on WebhookListen (default 127.0.0.1:8443, behind a reverse
	// proxy) or on WebhookListener when given (socket activation, tests).
	WebhookURL      string
	WebhookListen   string
	WebhookListener net.Listener
	// WebhookSecret is the X-Telegram-Bot-Api-Secret-Token Telegram must
	// send ([A-Za-z0-9_-], at most 256); default: a random one per Run.
	WebhookSecret string
	// HTTPClient makes every request (nil: a client with connect and TLS
	// timeouts; calls get their own deadlines). Its Timeout, if any, must
	// exceed PollTimeout.
	HTTPClient *http.Client
	// Logger receives what the adapter reports (nil: discarded).
	Logger *slog.Logger
	// KV keeps the update offset across restarts, under
	// "telegram:<bot id>:offset" (nil: in memory only).
	KV gateway.KV
	// Now is the clock for State.Since (default time.Now).
	Now func() time.Time
	// Backoff is the first wait after a failure, doubled after each
	// further one up to MaxBackoff (defaults 1s and 1m).
	Backoff    time.Duration
	MaxBackoff time.Duration
	// PollTimeout is how long Telegram may hold a getUpdates (whole
	// seconds, default 50s).
	PollTimeout time.Duration
	// AnswerTimeout is how long a button press waits for Click's Answer
	// before the adapter answers it empty (default 5s).
	AnswerTimeout time.Duration
}

// Adapter is the Telegram platform of the gateway.
type Adapter struct {
	o       Options
	api     string
	webhook *url.URL
	bot     *bot.Bot
	client  *http.Client
	log     *slog.Logger
	kv      gateway.KV
	running atomic.Bool
}

var _ gateway.Adapter = (*Adapter)(nil)
var _ gateway.Commands = (*Adapter)(nil)

// New checks the options and builds an Adapter; it makes no request.
func New(o Options) (*Adapter, error) {
	if strings.TrimSpace(o.Token) == "" {
		return nil, errors.New("telegram: no bot token")
	}
	if o.APIURL == "" {
		o.APIURL = DefaultAPIURL
	}
	if o.WebhookListen == "" {
		o.WebhookListen = DefaultWebhookListen
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Backoff <= 0 {
		o.Backoff = DefaultBackoff
	}
	if o.MaxBackoff < o.Backoff {
		o.MaxBackoff = max(DefaultMaxBackoff, o.Backoff)
	}
	switch {
	case o.PollTimeout <= 0:
		o.PollTimeout = DefaultPollTimeout
	case o.PollTimeout < time.Second:
		o.PollTimeout = time.Second // Telegram counts in seconds; 0 would not hold the poll at all
	}
	if o.AnswerTimeout <= 0 {
		o.AnswerTimeout = DefaultAnswerTimeout
	}
	a := &Adapter{o: o, api: strings.TrimRight(o.APIURL, "/"), client: o.HTTPClient, log: o.Logger, kv: o.KV}
	if _, err := url.Parse(a.api); err != nil {
		return nil, fmt.Errorf("telegram: api url: %w", err)
	}
	if o.WebhookURL != "" {
		u, err := url.Parse(o.WebhookURL)
		if err != nil || u.Scheme == "" || u.Host == "" {
			return nil, fmt.Errorf("telegram: webhook url %q is not an absolute URL", o.WebhookURL)
		}
		a.webhook = u
	}
	if a.client == nil {
		a.client = defaultClient()
	}
	if a.log == nil {
		a.log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	if a.kv == nil {
		a.kv = gateway.NewMemoryKV()
	}
	b, err := bot.New(o.Token,
		bot.WithServerURL(a.api),
		bot.WithHTTPClient(o.PollTimeout+pollGrace, a.client),
		bot.WithSkipGetMe(),
		bot.WithErrorsHandler(func(err error) { a.log.Warn("telegram client", "err", err) }),
	)
	if err != nil {
		return nil, fmt.Errorf("telegram: %w", err)
	}
	a.bot = b
	return a, nil
}

func defaultClient() *http.Client {
	return &http.Client{Transport: &http.Transport{
		Proxy:               http.ProxyFromEnvironment,
		DialContext:         (&net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
		TLSHandshakeTimeout: 10 * time.Second,
		IdleConnTimeout:     90 * time.Second,
		MaxIdleConnsPerHost: 4,
		ForceAttemptHTTP2:   true,
	}}
}

// Platform is "telegram".
func (a *Adapter) Platform() string { return "telegram" }

// Limits are Telegram's: 4,096 characters, its HTML subset, 64 bytes of
// callback data, editable messages.
func (a *Adapter) Limits() gateway.Limits {
	return gateway.Limits{MaxText: 4096, Format: "html", MaxButtonData: 64, Edits: true}
}
