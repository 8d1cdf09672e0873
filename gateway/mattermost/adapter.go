package mattermost

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/hermes-go/hermes/gateway"
	"github.com/hermes-go/hermes/gateway/internal/backoff"
	"github.com/hermes-go/hermes/gateway/internal/chatmem"
)

// DefaultActionsListen is where the button endpoint listens when
// Options.ActionsListen is empty: a free port on the loopback, chosen at
// start, which a Mattermost server on the same host reaches.
const DefaultActionsListen = "127.0.0.1:0"

// ActionsPath is the path of the button endpoint.
const ActionsPath = "/mattermost/actions"

// Options configure an Adapter.
type Options struct {
	// URL is the server, https://mattermost.example.com.
	URL string
	// Token is the bot account's access token.
	Token string
	// ActionsListen is the address the button endpoint listens on
	// (default DefaultActionsListen); ActionsListener, when set, is used
	// instead.
	ActionsListen   string
	ActionsListener net.Listener
	// ActionsURL is the endpoint's URL as the Mattermost server reaches
	// it (https://bot.example.com/mattermost/actions); empty means
	// http://<the listener's address>/mattermost/actions.
	ActionsURL string
	// HTTPClient makes the REST calls (nil: one with timeouts).
	HTTPClient *http.Client
	// Logger receives what the adapter does not return (nil: discarded).
	Logger *slog.Logger
	// KV keeps the threads the bot is in, the channels it has seen and
	// the time of the last post it read, across restarts (nil: memory).
	KV gateway.KV
	// Now is the clock of State.Since (nil: time.Now).
	Now func() time.Time
	// Backoff is the first wait before reconnecting after a failure,
	// doubled per failure in a row up to MaxBackoff (defaults 1 s and
	// 2 min).
	Backoff    time.Duration
	MaxBackoff time.Duration
	// PingTimeout is how long the websocket may stay silent, without a
	// ping or an event, before it is taken as dead (default 2 min; the
	// server pings every minute).
	PingTimeout time.Duration
	// ClickWait is how long a button press waits for the gateway's
	// answer before the endpoint answers without it; a later answer is
	// posted as an ephemeral post (default 10 s).
	ClickWait time.Duration
}

// Adapter is Mattermost for the gateway. Send, Edit, Upload and Typing
// may be called from any goroutine; Run runs once at a time.
type Adapter struct {
	o      Options
	base   string // the server's URL, without a trailing slash
	http   *http.Client
	log    *slog.Logger
	now    func() time.Time
	secret string // in every button's context: proves a click came from a post of this run

	mu         sync.Mutex
	self       identity
	actionsURL string

	seen     *chatmem.Recent
	threads  *chatmem.Threads
	names    *chatmem.Names
	roots    *chatmem.Names // thread roots looked up: "1" the bot's, "0" not
	channels *channels
}

var _ gateway.Adapter = (*Adapter)(nil)

// identity is what /users/me says about the bot.
type identity struct {
	id, username string
}

// New checks the options and makes an Adapter; it does not connect.
func New(o Options) (*Adapter, error) {
	if o.URL == "" {
		return nil, errors.New("mattermost: the server URL is required")
	}
	if o.Token == "" {
		return nil, errors.New("mattermost: a bot access token is required")
	}
	u, err := url.Parse(o.URL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("mattermost: the server URL %q is not an http(s) URL", o.URL)
	}
	if o.ActionsURL != "" {
		au, err := url.Parse(o.ActionsURL)
		if err != nil || (au.Scheme != "http" && au.Scheme != "https") || au.Host == "" {
			return nil, fmt.Errorf("mattermost: actions_url %q is not an http(s) URL", o.ActionsURL)
		}
		if o.ActionsListen == "" && o.ActionsListener == nil {
			return nil, errors.New("mattermost: actions_url needs actions_listen, the fixed address it leads to")
		}
	}
	if o.ActionsListen == "" {
		o.ActionsListen = DefaultActionsListen
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
		o.PingTimeout = 2 * time.Minute
	}
	if o.ClickWait <= 0 {
		o.ClickWait = 10 * time.Second
	}
	var b [24]byte
	if _, err := rand.Read(b[:]); err != nil {
		return nil, fmt.Errorf("mattermost: making the buttons' secret: %w", err)
	}
	log := o.Logger.With("platform", "mattermost")
	return &Adapter{
		o:        o,
		base:     strings.TrimRight(o.URL, "/"),
		http:     o.HTTPClient,
		log:      log,
		now:      o.Now,
		secret:   hex.EncodeToString(b[:]),
		seen:     chatmem.NewRecent(4096),
		threads:  chatmem.NewThreads("mattermost", o.KV, log, 4096),
		names:    chatmem.NewNames(4096),
		roots:    chatmem.NewNames(4096),
		channels: newChannels(o.KV, log),
	}, nil
}

// Platform is "mattermost".
func (a *Adapter) Platform() string { return "mattermost" }

// maxPost is the most characters a post holds (the server's default
// MaxPostSize).
const maxPost = 16383

// Limits: posts are cut at 16,000 characters, leaving room for the
// backslashes plain text is escaped with; the text is Markdown. A
// button's data travels in its context, which has no small limit. Posts
// can be edited.
func (a *Adapter) Limits() gateway.Limits {
	return gateway.Limits{MaxText: 16000, Format: "markdown", Edits: true}
}

// Typing shows "hermes is typing..." in the chat (and its thread) for a
// few seconds.
func (a *Adapter) Typing(ctx context.Context, chat gateway.ChatRef) error {
	body := map[string]string{"channel_id": chat.ChatID, "parent_id": chat.ThreadID}
	return a.call(ctx, http.MethodPost, "/api/v4/users/me/typing", body, nil)
}

// Run identifies the bot (GET /users/me), opens the button endpoint,
// then reads the websocket until ctx ends, reconnecting with backoff.
func (a *Adapter) Run(ctx context.Context, h gateway.Handler) error {
	if err := a.identify(ctx, h); err != nil {
		if ctx.Err() != nil {
			a.report(h, false, "stopped")
			return nil
		}
		return err
	}
	stopActions, err := a.serveActions(ctx, h)
	if err != nil {
		a.report(h, false, "cannot serve the button endpoint: "+err.Error())
		return err
	}
	defer stopActions()
	return a.runSocket(ctx, h)
}

// identify calls /users/me until it answers: a refused token ends Run,
// anything else is retried with backoff.
func (a *Adapter) identify(ctx context.Context, h gateway.Handler) error {
	for failures := 0; ; failures++ {
		var me struct {
			ID       string `json:"id"`
			Username string `json:"username"`
		}
		err := a.call(ctx, http.MethodGet, "/api/v4/users/me", nil, &me)
		if err == nil {
			a.mu.Lock()
			a.self = identity{id: me.ID, username: me.Username}
			a.mu.Unlock()
			return nil
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if se, ok := gateway.AsSendError(err); ok && se.Status == http.StatusUnauthorized {
			a.report(h, false, "the server refused the bot token: "+err.Error())
			return fmt.Errorf("mattermost: the bot token is refused: %w", err)
		}
		wait := backoff.Jittered(a.o.Backoff, a.o.MaxBackoff, failures)
		a.report(h, false, fmt.Sprintf("users/me failed: %v; retrying in %s", err, wait))
		a.log.Warn("users/me failed", "err", err, "retry_in", wait)
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

func (a *Adapter) report(h gateway.Handler, connected bool, detail string) {
	h.State(gateway.State{Platform: a.Platform(), Connected: connected, Detail: detail, Since: a.now()})
}
