package slack

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	slackapi "github.com/slack-go/slack"

	"github.com/hermes-go/hermes/gateway"
	"github.com/hermes-go/hermes/gateway/internal/backoff"
	"github.com/hermes-go/hermes/gateway/internal/chatmem"
)

// Modes of receiving events.
const (
	ModeSocket = "socket" // Socket Mode: a websocket the adapter opens
	ModeEvents = "events" // the Events API: Slack posts to an HTTP endpoint
)

// Paths of the Events API endpoint.
const (
	EventsPath      = "/slack/events"
	InteractivePath = "/slack/interactive"
)

// Options configure an Adapter.
type Options struct {
	// BotToken is the bot's token (xoxb-...), for the Web API.
	BotToken string
	// AppToken is an app-level token (xapp-...) with connections:write,
	// for Socket Mode.
	AppToken string
	// SigningSecret checks the Events API's requests.
	SigningSecret string
	// Mode is ModeSocket (the default) or ModeEvents.
	Mode string
	// EventsListen is the address the Events API endpoint listens on
	// (default 127.0.0.1:3000); EventsListener, when set, is used instead.
	EventsListen   string
	EventsListener net.Listener
	// APIURL is the Web API base (default https://slack.com/api/).
	APIURL string
	// HTTPClient makes the Web API calls (nil: one with timeouts).
	HTTPClient *http.Client
	// Logger receives what the adapter does not return (nil: discarded).
	Logger *slog.Logger
	// KV keeps the threads the bot has replied in across restarts (nil:
	// memory only).
	KV gateway.KV
	// Now is the clock of State.Since (nil: time.Now).
	Now func() time.Time
	// Backoff is the first wait before reconnecting after a failure,
	// doubled per failure in a row up to MaxBackoff (defaults 1 s and
	// 2 min).
	Backoff    time.Duration
	MaxBackoff time.Duration
	// PingTimeout is how long a socket may stay silent, without a ping
	// or an envelope from Slack, before it is taken as dead and replaced
	// (default 1 min; slack-go's own client allows 30 s between pings).
	PingTimeout time.Duration
}

// Adapter is Slack for the gateway. Send, Edit, Upload and Typing may be
// called from any goroutine; Run runs once at a time.
type Adapter struct {
	o   Options
	api *slackapi.Client
	log *slog.Logger
	now func() time.Time

	mu   sync.Mutex
	self identity

	seen    *chatmem.Recent
	threads *chatmem.Threads
	names   *chatmem.Names
}

var _ gateway.Adapter = (*Adapter)(nil)

// identity is what auth.test says about the bot.
type identity struct {
	userID, botID, name, team string
}

// New checks the options and makes an Adapter; it does not connect.
func New(o Options) (*Adapter, error) {
	if o.BotToken == "" {
		return nil, errors.New("slack: a bot token (xoxb-...) is required")
	}
	switch o.Mode {
	case "", ModeSocket:
		o.Mode = ModeSocket
		if o.AppToken == "" {
			return nil, errors.New("slack: socket mode needs an app-level token (xapp-...)")
		}
		if !strings.HasPrefix(o.AppToken, "xapp-") {
			return nil, errors.New("slack: the app token must be an app-level token (xapp-...), not a bot or user token")
		}
	case ModeEvents:
		if o.SigningSecret == "" {
			return nil, errors.New("slack: the Events API needs the app's signing secret")
		}
	default:
		return nil, fmt.Errorf("slack: unknown mode %q (want %q or %q)", o.Mode, ModeSocket, ModeEvents)
	}
	if o.EventsListen == "" {
		o.EventsListen = "127.0.0.1:3000"
	}
	if o.APIURL == "" {
		o.APIURL = slackapi.APIURL
	}
	if !strings.HasSuffix(o.APIURL, "/") {
		o.APIURL += "/"
	}
	if o.HTTPClient == nil {
		t := http.DefaultTransport.(*http.Transport).Clone()
		t.ResponseHeaderTimeout = 30 * time.Second
		o.HTTPClient = &http.Client{Transport: t}
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
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
	if o.PingTimeout <= 0 {
		o.PingTimeout = time.Minute
	}
	log := o.Logger.With("platform", "slack")
	a := &Adapter{
		o:   o,
		log: log,
		now: o.Now,
		api: slackapi.New(o.BotToken,
			slackapi.OptionAPIURL(o.APIURL),
			slackapi.OptionHTTPClient(o.HTTPClient),
			slackapi.OptionAppLevelToken(o.AppToken)),
		seen:    chatmem.NewRecent(4096),
		threads: chatmem.NewThreads("slack", o.KV, log, 4096),
		names:   chatmem.NewNames(4096),
	}
	return a, nil
}

// Platform is "slack".
func (a *Adapter) Platform() string { return "slack" }

// Limits: Slack cuts a message's text after 40,000 characters; 39,000
// leaves room for the entities (&amp;, &lt;) the text grows by when
// escaped. Messages with buttons carry their text in section blocks of
// at most 3,000 characters each, which Send cuts for itself. A button's
// value holds at most 2,000 characters.
func (a *Adapter) Limits() gateway.Limits {
	return gateway.Limits{MaxText: 39000, Format: "mrkdwn", MaxButtonData: 2000, Edits: true}
}

// Typing does nothing: Slack has no typing indicator for bots outside
// the assistant threads API.
func (a *Adapter) Typing(context.Context, gateway.ChatRef) error { return nil }

// Run identifies the bot (auth.test), then receives events in the
// configured mode until ctx ends.
func (a *Adapter) Run(ctx context.Context, h gateway.Handler) error {
	if err := a.identify(ctx, h); err != nil {
		if ctx.Err() != nil {
			a.report(h, false, "stopped")
			return nil
		}
		return err
	}
	if a.o.Mode == ModeEvents {
		return a.runEvents(ctx, h)
	}
	return a.runSocket(ctx, h)
}

// identify calls auth.test until it answers: a refused token ends Run,
// anything else is retried with backoff.
func (a *Adapter) identify(ctx context.Context, h gateway.Handler) error {
	for failures := 0; ; failures++ {
		r, err := a.api.AuthTestContext(ctx)
		if err == nil {
			a.mu.Lock()
			a.self = identity{userID: r.UserID, botID: r.BotID, name: r.User, team: r.Team}
			a.mu.Unlock()
			return nil
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if refusedToken(err) {
			a.report(h, false, "auth.test refused the bot token: "+err.Error())
			return fmt.Errorf("slack auth.test: the bot token is refused: %w", err)
		}
		wait := backoff.Jittered(a.o.Backoff, a.o.MaxBackoff, failures)
		a.report(h, false, fmt.Sprintf("auth.test failed: %v; retrying in %s", err, wait))
		a.log.Warn("auth.test failed", "err", err, "retry_in", wait)
		if !backoff.Sleep(ctx, wait) {
			return ctx.Err()
		}
	}
}

func (a *Adapter) me() identity {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.self
}

// connectedAs is the Detail of a connected State: "@hermes in Acme".
func (a *Adapter) connectedAs() string {
	me := a.me()
	return fmt.Sprintf("@%s in %s", me.name, me.team)
}

func (a *Adapter) report(h gateway.Handler, connected bool, detail string) {
	h.State(gateway.State{Platform: a.Platform(), Connected: connected, Detail: detail, Since: a.now()})
}

// refusedToken says Slack refused a token for good: retrying cannot help.
func refusedToken(err error) bool {
	var se slackapi.SlackErrorResponse
	if !errors.As(err, &se) {
		return false
	}
	switch se.Err {
	case "invalid_auth", "not_authed", "account_inactive", "token_revoked", "token_expired", "not_allowed_token_type", "missing_scope":
		return true
	}
	return false
}
