package discord

import (
	"bytes"
	"context"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"
	"time"

	"github.com/bwmarrin/discordgo"
)

const (
	requestTimeout   = 30 * time.Second
	handshakeTimeout = 30 * time.Second
	// maxErrorBody bounds what is kept of a refusal's body.
	maxErrorBody = 64 << 10
)

// discordHost is the host discordgo's endpoint variables name.
const discordHost = "discord.com"

// rewritingClient returns a client whose requests to discord.com go to
// base instead: discordgo has no URL option, its endpoints are package
// variables, so the seam is the transport.
func rewritingClient(hc *http.Client, base *url.URL) *http.Client {
	var c http.Client
	if hc != nil {
		c = *hc
	} else {
		c.Timeout = requestTimeout
	}
	next := c.Transport
	if next == nil {
		next = http.DefaultTransport
	}
	c.Transport = &rewriter{base: base, next: next}
	return &c
}

type rewriter struct {
	base *url.URL
	next http.RoundTripper
}

func (t *rewriter) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.URL.Host == discordHost && t.base.Host != discordHost {
		req = req.Clone(req.Context())
		req.URL.Scheme = t.base.Scheme
		req.URL.Host = t.base.Host
		req.URL.Path = strings.TrimRight(t.base.Path, "/") + req.URL.Path
		req.URL.RawPath = ""
		req.Host = ""
	}
	return t.next.RoundTrip(req)
}

// answer is Discord's refusal of one call, as the transport saw it.
// discordgo keeps only parts of it (a 429's Retry-After header is lost,
// a body that is not JSON becomes a decoding error), so the adapter reads
// the refusal here and classifies it once (see classify).
type answer struct {
	status int
	header http.Header
	body   []byte
}

// capture fills an answer with the refusal of the call it carries.
type capture struct {
	next http.RoundTripper
	a    *answer
}

func (t *capture) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := t.next.RoundTrip(req)
	if err != nil || resp.StatusCode < 400 {
		return resp, err
	}
	body, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
	resp.Body.Close()
	resp.Body = io.NopCloser(bytes.NewReader(body))
	t.a.status, t.a.header, t.a.body = resp.StatusCode, resp.Header.Clone(), body
	return resp, nil
}

// call returns the discordgo options of one REST call: its context, and
// a client that fills ans when Discord refuses the call.
func (a *Adapter) call(ctx context.Context, ans *answer) []discordgo.RequestOption {
	c := *a.hc
	c.Transport = &capture{next: a.hc.Transport, a: ans}
	return []discordgo.RequestOption{discordgo.WithContext(ctx), discordgo.WithClient(&c)}
}

// rawConn is the gateway socket's TCP connection, kept so the adapter
// can cut it: discordgo's reads have no deadline and its Close first
// sends a close frame that would end the session on Discord's side.
type rawConn struct {
	net.Conn
	closed atomic.Bool
}

func (c *rawConn) Close() error {
	c.closed.Store(true)
	return c.Conn.Close()
}

// dial opens the gateway socket's connection and remembers it.
func (a *Adapter) dial(ctx context.Context, network, addr string) (net.Conn, error) {
	d := net.Dialer{Timeout: handshakeTimeout, KeepAlive: 30 * time.Second}
	c, err := d.DialContext(ctx, network, addr)
	if err != nil {
		return nil, err
	}
	rc := &rawConn{Conn: c}
	a.mu.Lock()
	a.raw = rc
	a.mu.Unlock()
	return rc, nil
}

// cut closes the current socket's connection.
func (a *Adapter) cut() {
	a.mu.Lock()
	rc := a.raw
	a.mu.Unlock()
	if rc != nil {
		rc.Close()
	}
}
