package signal

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hermes-go/hermes/gateway"
)

// DefaultHTTPURL is where `signal-cli daemon --http` listens by default.
const DefaultHTTPURL = "http://127.0.0.1:8080"

// Defaults of Options.
const (
	DefaultBackoff    = time.Second
	DefaultMaxBackoff = time.Minute
)

const (
	callTimeout = 2 * time.Minute // a JSON-RPC call (a send with attachments may upload)
	maxAnswer   = 64 << 20        // bytes of a JSON-RPC answer (getAttachment's base64)
	maxUpload   = 100 << 20       // bytes of an attachment Signal takes
	maxCards    = 256             // messages with buttons remembered for their reactions
)

// Options configure an Adapter. Account is required.
type Options struct {
	// HTTPURL is the signal-cli daemon's HTTP interface (default
	// http://127.0.0.1:8080): JSON-RPC at /api/v1/rpc, events at
	// /api/v1/events.
	HTTPURL string
	// Account is the bot's number (+15551234567), registered or linked
	// in signal-cli.
	Account string
	// HTTPClient makes every request (nil: a client with a connect
	// timeout; calls get their own deadlines). It must not time out the
	// event stream, which stays open.
	HTTPClient *http.Client
	// Logger receives what the adapter reports (nil: discarded).
	Logger *slog.Logger
	// KV keeps the last event id across restarts, under
	// "signal:<account>:event" (nil: in memory only).
	KV gateway.KV
	// Now is the clock for State.Since (default time.Now).
	Now func() time.Time
	// Backoff is the first wait after a failure, doubled after each
	// further one up to MaxBackoff (defaults 1s and 1m).
	Backoff    time.Duration
	MaxBackoff time.Duration
}

// Adapter is the Signal platform of the gateway.
type Adapter struct {
	o       Options
	base    string
	client  *http.Client
	log     *slog.Logger
	kv      gateway.KV
	running atomic.Bool

	mu    sync.Mutex
	cards map[string]card // "chat\x00timestamp" of the bot's messages with buttons
	order []string        // the cards' keys, oldest first
	// sending counts the sends of messages with buttons in flight;
	// settled is closed when it falls to 0.
	sending int
	settled chan struct{}
}

var _ gateway.Adapter = (*Adapter)(nil)

// New checks the options and builds an Adapter; it makes no request.
func New(o Options) (*Adapter, error) {
	o.Account = strings.TrimSpace(o.Account)
	if o.Account == "" {
		return nil, errors.New("signal: no account number")
	}
	if o.HTTPURL == "" {
		o.HTTPURL = DefaultHTTPURL
	}
	u, err := url.Parse(o.HTTPURL)
	if err != nil || u.Scheme == "" || u.Host == "" {
		return nil, fmt.Errorf("signal: http url %q is not an absolute URL", o.HTTPURL)
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
	a := &Adapter{o: o, base: strings.TrimRight(o.HTTPURL, "/"), client: o.HTTPClient, log: o.Logger, kv: o.KV, cards: map[string]card{}, settled: make(chan struct{})}
	if a.client == nil {
		a.client = &http.Client{Transport: &http.Transport{
			Proxy:               http.ProxyFromEnvironment,
			DialContext:         (&net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
			TLSHandshakeTimeout: 10 * time.Second,
			IdleConnTimeout:     90 * time.Second,
			MaxIdleConnsPerHost: 4,
		}}
	}
	if a.log == nil {
		a.log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	if a.kv == nil {
		a.kv = gateway.NewMemoryKV()
	}
	return a, nil
}

// Platform is "signal".
func (a *Adapter) Platform() string { return "signal" }

// Limits are Signal's: plain text (Signal renders no markup), 2,000
// characters (longer texts travel as an attachment the apps fold away),
// and messages the sender may edit.
func (a *Adapter) Limits() gateway.Limits {
	return gateway.Limits{MaxText: 2000, Format: "plain", Edits: true}
}
