package email

import (
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/mail"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hermes-go/hermes/gateway"
)

// Defaults of Options.
const (
	DefaultFolder       = "INBOX"
	DefaultPollInterval = time.Minute
	DefaultBackoff      = time.Second
	DefaultMaxBackoff   = time.Minute
	// DefaultIdleRestart ends an IDLE before servers drop it (RFC 2177
	// asks clients to re-issue it at least every 29 minutes).
	DefaultIdleRestart = 25 * time.Minute
	// DefaultTempFailWait is how long a reply waits after an SMTP 4xx
	// that names no delay of its own.
	DefaultTempFailWait = time.Minute
)

const (
	dialTimeout = 30 * time.Second
	// answerTimeout bounds the wait for the server's answer to DONE or
	// NOOP: a connection that died silently answers nothing.
	answerTimeout = time.Minute
	// maxMailBytes bounds one mail read into memory; a larger mail is
	// handled by its headers alone.
	maxMailBytes = 32 << 20
	maxCards     = 256
)

// Options configure an Adapter. IMAPURL, SMTPURL and User are required.
type Options struct {
	// IMAPURL is imaps://host[:993], or imap://host[:143] upgraded with
	// STARTTLS; SMTPURL is smtps://host[:465], or smtp://host[:587]
	// upgraded with STARTTLS. Only a loopback host may be reached
	// without TLS (imap:// or smtp:// to 127.0.0.1, ::1 or localhost,
	// when the server offers no STARTTLS).
	IMAPURL, SMTPURL string
	// User and Password log in to both servers.
	User, Password string
	// Address is the bot's address, the From of its mail (default User).
	Address string
	// Folder is the folder watched (default INBOX).
	Folder string
	// PollInterval is how often a server without IDLE is asked for new
	// mail (default 1m).
	PollInterval time.Duration
	// TLSConfig is used for both servers (nil: the system's roots).
	TLSConfig *tls.Config
	// Logger receives what the adapter reports (nil: discarded).
	Logger *slog.Logger
	// KV keeps the folder's cursor and the threads' recipients across
	// restarts (nil: in memory only).
	KV gateway.KV
	// Now is the clock of State.Since and of the mail's Date.
	Now func() time.Time
	// Backoff is the first wait after a failure, doubled up to
	// MaxBackoff (defaults 1s and 1m).
	Backoff, MaxBackoff time.Duration
	// IdleRestart is how long one IDLE lasts (default 25m).
	IdleRestart time.Duration
}

// Adapter is the email platform of the gateway.
type Adapter struct {
	o          Options
	imap, smtp endpoint
	self       string // the bot's address, lower case
	domain     string // the right side of self, for Message-IDs
	log        *slog.Logger
	kv         gateway.KV
	running    atomic.Bool

	mu      sync.Mutex // threads (read-modify-write of their KV records) and cards
	cards   map[string][]choice
	cardIDs []string // oldest first, at most maxCards
	clicked map[string]bool
}

var _ gateway.Adapter = (*Adapter)(nil)

// New checks the options and builds an Adapter; it connects to nothing.
func New(o Options) (*Adapter, error) {
	if strings.TrimSpace(o.User) == "" {
		return nil, errors.New("email: no user to log in as")
	}
	if o.Address == "" {
		o.Address = o.User
	}
	self, err := mail.ParseAddress(o.Address)
	if err != nil {
		return nil, fmt.Errorf("email: the bot's address %q: %w", o.Address, err)
	}
	if o.Folder == "" {
		o.Folder = DefaultFolder
	}
	if o.PollInterval <= 0 {
		o.PollInterval = DefaultPollInterval
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
	if o.IdleRestart <= 0 {
		o.IdleRestart = DefaultIdleRestart
	}
	a := &Adapter{o: o, log: o.Logger, kv: o.KV, self: strings.ToLower(self.Address),
		cards: map[string][]choice{}, clicked: map[string]bool{}}
	_, a.domain, _ = strings.Cut(a.self, "@")
	if a.imap, err = parseEndpoint(o.IMAPURL, "imap", 143, 993); err != nil {
		return nil, err
	}
	if a.smtp, err = parseEndpoint(o.SMTPURL, "smtp", 587, 465); err != nil {
		return nil, err
	}
	if a.log == nil {
		a.log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	if a.kv == nil {
		a.kv = gateway.NewMemoryKV()
	}
	return a, nil
}

// Platform is "email".
func (a *Adapter) Platform() string { return "email" }

// Limits are mail's: long plain-text bodies, no edits (a sent mail
// cannot be changed, so replies are sent whole, never streamed).
func (a *Adapter) Limits() gateway.Limits {
	return gateway.Limits{MaxText: 100_000, Format: "plain", Edits: false, DMPerChat: true}
}

// endpoint is a server to reach and how: TLS from the start, STARTTLS,
// or (loopback only) neither.
type endpoint struct {
	addr        string // host:port
	host        string
	implicitTLS bool
	plain       bool // no TLS at all: only for loopback hosts
}

// parseEndpoint reads an imap(s):// or smtp(s):// URL.
func parseEndpoint(raw, scheme string, plainPort, tlsPort int) (endpoint, error) {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil || u.Host == "" {
		return endpoint{}, fmt.Errorf("email: %s url %q is not %s://host or %ss://host", scheme, raw, scheme, scheme)
	}
	e := endpoint{host: u.Hostname()}
	port := u.Port()
	switch u.Scheme {
	case scheme + "s":
		e.implicitTLS = true
		if port == "" {
			port = fmt.Sprint(tlsPort)
		}
	case scheme:
		if port == "" {
			port = fmt.Sprint(plainPort)
		}
		e.plain = loopback(e.host)
	default:
		return endpoint{}, fmt.Errorf("email: %s url %q: the scheme must be %s or %ss", scheme, raw, scheme, scheme)
	}
	e.addr = net.JoinHostPort(e.host, port)
	return e, nil
}

// loopback says the host is this machine, where a password sent without
// TLS crosses no network.
func loopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

func (a *Adapter) tlsConfig(host string) *tls.Config {
	c := &tls.Config{}
	if a.o.TLSConfig != nil {
		c = a.o.TLSConfig.Clone()
	}
	if c.ServerName == "" {
		c.ServerName = host
	}
	return c
}
