package matrix

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"maunium.net/go/mautrix"
	"maunium.net/go/mautrix/id"

	"github.com/hermes-go/hermes/gateway"
)

// Defaults of Options.
const (
	DefaultBackoff     = time.Second
	DefaultMaxBackoff  = time.Minute
	DefaultSyncTimeout = 30 * time.Second
)

const (
	callTimeout = time.Minute // a request other than /sync and uploads
	syncGrace   = 15 * time.Second
	// maxText keeps an event (body and formatted_body, up to 4 bytes a
	// rune each) under the homeserver's 64 KiB event limit.
	maxText = 6000
	// remembered bounds each in-memory set of event ids (seen events,
	// the bot's own events, cards).
	remembered = 4096
	// maxGap is the most events of one room read back after a limited
	// sync.
	maxGap = 5000
)

// Options configure an Adapter. Homeserver and AccessToken are required.
type Options struct {
	// Homeserver is the homeserver's base URL (https://matrix.example.org).
	Homeserver string
	// AccessToken logs the bot's account in; whoami says who it is.
	AccessToken string
	// Inviters may invite the bot into a room: it joins their invites
	// and leaves every other invite unanswered (logged). AllowAll
	// accepts every invite.
	Inviters []string
	AllowAll bool
	// HTTPClient makes every request (nil: a client with connect and TLS
	// timeouts; calls get their own deadlines).
	HTTPClient *http.Client
	// Logger receives what the adapter reports (nil: discarded).
	Logger *slog.Logger
	// KV keeps the sync token across restarts, under
	// "matrix:<user id>:since" (nil: in memory only).
	KV gateway.KV
	// Now is the clock for State.Since (default time.Now).
	Now func() time.Time
	// Backoff is the first wait after a failed /sync, doubled after each
	// further one up to MaxBackoff (defaults 1s and 1m).
	Backoff    time.Duration
	MaxBackoff time.Duration
	// SyncTimeout is how long the homeserver may hold a /sync (default 30s).
	SyncTimeout time.Duration
}

// Adapter is the Matrix platform of the gateway.
type Adapter struct {
	o       Options
	cli     *mautrix.Client
	log     *slog.Logger
	kv      gateway.KV
	running atomic.Bool

	// txnPrefix makes this process's transaction ids unique: the
	// homeserver answers a reused one with the event it first made.
	txnPrefix string
	txnSeq    atomic.Uint64

	mu sync.Mutex
	me id.UserID
	// name is the bot's display name, which mentions may use.
	name string
	// pending holds the transaction id of a send whose outcome is
	// unknown (the request failed in transit), per room and content:
	// the gateway's retry of that send reuses it, so the homeserver
	// posts it at most once.
	pending map[string]string
	// own are the bot's recent events: a reply to one addresses it.
	own *idSet
	// seen are events handed to the gateway, so one repeated by a later
	// sync is not handed twice.
	seen *idSet
	// cards are the bot's messages with buttons: their reaction keys.
	cards map[id.EventID]*card
	order []id.EventID
	// rooms caches what the adapter learned of a room.
	rooms map[id.RoomID]*roomInfo
}

var _ gateway.Adapter = (*Adapter)(nil)

// New checks the options and builds an Adapter; it makes no request.
func New(o Options) (*Adapter, error) {
	if strings.TrimSpace(o.Homeserver) == "" {
		return nil, errors.New("matrix: no homeserver URL")
	}
	if strings.TrimSpace(o.AccessToken) == "" {
		return nil, errors.New("matrix: no access token")
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
	if o.SyncTimeout <= 0 {
		o.SyncTimeout = DefaultSyncTimeout
	}
	cli, err := mautrix.NewClient(o.Homeserver, "", o.AccessToken)
	if err != nil {
		return nil, fmt.Errorf("matrix: homeserver %q: %w", o.Homeserver, err)
	}
	client := o.HTTPClient
	if client == nil {
		client = defaultClient()
	}
	cli.Client = client
	// The gateway's ledger retries sends; the client must not retry on
	// its own behind the ledger's back.
	cli.DefaultHTTPRetries = 0
	cli.UserAgent = "hermes"
	var b [6]byte
	if _, err := rand.Read(b[:]); err != nil {
		return nil, fmt.Errorf("matrix: transaction ids: %w", err)
	}
	a := &Adapter{o: o, cli: cli, log: o.Logger, kv: o.KV, txnPrefix: "hermes" + hex.EncodeToString(b[:]),
		pending: map[string]string{}, own: newIDSet(remembered), seen: newIDSet(remembered),
		cards: map[id.EventID]*card{}, rooms: map[id.RoomID]*roomInfo{}}
	if a.log == nil {
		a.log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	if a.kv == nil {
		a.kv = gateway.NewMemoryKV()
	}
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

// Platform is "matrix".
func (a *Adapter) Platform() string { return "matrix" }

// Limits are Matrix's: markdown rendered to HTML, editable messages
// (m.replace), buttons as reactions.
func (a *Adapter) Limits() gateway.Limits {
	return gateway.Limits{MaxText: maxText, Format: "markdown", Edits: true}
}

// idSet is a bounded set of event ids: the oldest is forgotten first.
type idSet struct {
	max   int
	has   map[string]bool
	order []string
}

func newIDSet(n int) *idSet { return &idSet{max: n, has: map[string]bool{}} }

// add adds s and reports whether it was new.
func (s *idSet) add(v string) bool {
	if s.has[v] {
		return false
	}
	s.has[v] = true
	s.order = append(s.order, v)
	if len(s.order) > s.max {
		delete(s.has, s.order[0])
		s.order = s.order[1:]
	}
	return true
}

func (s *idSet) contains(v string) bool { return s.has[v] }
