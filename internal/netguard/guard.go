package netguard

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"strings"
	"syscall"
	"time"
)

// ErrBlocked is wrapped by every refusal (errors.Is), through the url and
// net errors of the HTTP client.
var ErrBlocked = errors.New("address not allowed")

// BlockedError names the refused address and why.
type BlockedError struct {
	Addr   netip.Addr
	Reason string // "loopback", "private", "cloud metadata", ...
	// Always is set for addresses AllowPrivate does not lift.
	Always bool
}

func (e *BlockedError) Error() string {
	hint := "; set web.allow_private: true to allow private and local addresses"
	if e.Always {
		hint = ""
	}
	return fmt.Sprintf("refusing to connect to %s (%s address)%s", e.Addr, e.Reason, hint)
}

// Unwrap makes errors.Is(err, ErrBlocked) true.
func (e *BlockedError) Unwrap() error { return ErrBlocked }

// Resolver looks up a host's addresses; *net.Resolver is one. Tests give
// their own to play DNS tricks.
type Resolver interface {
	LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error)
}

// Guard checks addresses. The zero value refuses private addresses and
// resolves with net.DefaultResolver.
type Guard struct {
	// AllowPrivate lets requests reach loopback, private, link-local and
	// CGNAT addresses (web.allow_private). Cloud metadata stays refused.
	AllowPrivate bool
	// AllowAddrs are exact address:port pairs allowed whatever their
	// range: one local service the user trusts, without opening the rest.
	AllowAddrs []netip.AddrPort
	// Resolver resolves host names (nil: net.DefaultResolver).
	Resolver Resolver
	// DialTimeout bounds one connection attempt (default 10 s).
	DialTimeout time.Duration
}

var (
	cgnat = netip.MustParsePrefix("100.64.0.0/10")
	// reserved are ranges that are no public internet host.
	reserved = []netip.Prefix{
		netip.MustParsePrefix("0.0.0.0/8"),
		netip.MustParsePrefix("192.0.0.0/24"),
		netip.MustParsePrefix("192.0.2.0/24"),
		netip.MustParsePrefix("198.18.0.0/15"),
		netip.MustParsePrefix("198.51.100.0/24"),
		netip.MustParsePrefix("203.0.113.0/24"),
		netip.MustParsePrefix("240.0.0.0/4"),
		netip.MustParsePrefix("2001:db8::/32"),
		netip.MustParsePrefix("100::/64"),
	}
	// metadata are the cloud instance-metadata endpoints: refused even
	// with AllowPrivate, since they hand out the machine's credentials.
	metadata = []netip.Addr{
		netip.MustParseAddr("169.254.169.254"), // AWS, GCP, Azure, OpenStack, DigitalOcean
		netip.MustParseAddr("169.254.170.2"),   // AWS ECS task credentials
		netip.MustParseAddr("169.254.169.253"), // AWS DNS
		netip.MustParseAddr("100.100.100.200"), // Alibaba Cloud
		netip.MustParseAddr("fd00:ec2::254"),   // AWS over IPv6
	}
	// Prefixes that embed an IPv4 address: the embedded one is checked.
	nat64     = netip.MustParsePrefix("64:ff9b::/96")
	sixToFour = netip.MustParsePrefix("2002::/16")
)

// Check reports whether ip may be connected to; the error is a
// *BlockedError.
func (g *Guard) Check(ip netip.Addr) error {
	ip = ip.Unmap().WithZone("")
	for _, m := range metadata {
		if ip == m {
			return &BlockedError{Addr: ip, Reason: "cloud metadata", Always: true}
		}
	}
	if ip.Is6() {
		b := ip.As16()
		switch {
		case nat64.Contains(ip):
			return g.Check(netip.AddrFrom4([4]byte{b[12], b[13], b[14], b[15]}))
		case sixToFour.Contains(ip):
			return g.Check(netip.AddrFrom4([4]byte{b[2], b[3], b[4], b[5]}))
		}
	}
	reason := ""
	switch {
	case !ip.IsValid():
		return &BlockedError{Addr: ip, Reason: "invalid", Always: true}
	case ip.IsUnspecified():
		reason = "unspecified"
	case ip.IsLoopback():
		reason = "loopback"
	case ip.IsPrivate():
		reason = "private"
		if ip.Is6() {
			reason = "unique-local"
		}
	case ip.IsLinkLocalUnicast(), ip.IsLinkLocalMulticast():
		reason = "link-local"
	case ip.IsMulticast(), ip.IsInterfaceLocalMulticast():
		reason = "multicast"
	case cgnat.Contains(ip):
		reason = "carrier-grade NAT"
	case ip == netip.AddrFrom4([4]byte{255, 255, 255, 255}):
		reason = "broadcast"
	default:
		for _, p := range reserved {
			if p.Contains(ip) {
				reason = "reserved"
			}
		}
	}
	if reason == "" || g.AllowPrivate {
		return nil
	}
	return &BlockedError{Addr: ip, Reason: reason}
}

// control is the dialer's hook: it sees the address being connected to,
// after resolution, before the connection is made.
func (g *Guard) control(_ context.Context, _, address string, _ syscall.RawConn) error {
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return fmt.Errorf("netguard: unexpected address %q: %w", address, err)
	}
	ap = netip.AddrPortFrom(ap.Addr().Unmap().WithZone(""), ap.Port())
	for _, a := range g.AllowAddrs {
		if a == ap {
			return nil
		}
	}
	return g.Check(ap.Addr())
}

// DialContext connects to addr (host:port), resolving the host with the
// Guard's Resolver and checking each address at connect time.
func (g *Guard) DialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, err
	}
	timeout := g.DialTimeout
	if timeout <= 0 {
		timeout = 10 * time.Second
	}
	d := &net.Dialer{Timeout: timeout, ControlContext: g.control}
	if ip, err := netip.ParseAddr(strings.Trim(host, "[]")); err == nil {
		return d.DialContext(ctx, network, net.JoinHostPort(ip.String(), port))
	}
	ips, err := g.resolver().LookupNetIP(ctx, ipNetwork(network), host)
	if err != nil {
		return nil, err
	}
	var errs []error
	for _, ip := range ips {
		c, err := d.DialContext(ctx, network, net.JoinHostPort(ip.Unmap().String(), port))
		if err == nil {
			return c, nil
		}
		errs = append(errs, err)
	}
	if len(errs) == 0 {
		return nil, fmt.Errorf("netguard: %s has no address", host)
	}
	return nil, errors.Join(errs...)
}

// CheckHost resolves host and refuses it when an address it has is
// blocked: an early, clear answer before a request is made. The connect-
// time check still decides.
func (g *Guard) CheckHost(ctx context.Context, host string) error {
	if ip, err := netip.ParseAddr(strings.Trim(host, "[]")); err == nil {
		return g.Check(ip)
	}
	ips, err := g.resolver().LookupNetIP(ctx, "ip", host)
	if err != nil {
		return err
	}
	for _, ip := range ips {
		if err := g.Check(ip); err != nil {
			return err
		}
	}
	return nil
}

func (g *Guard) resolver() Resolver {
	if g.Resolver != nil {
		return g.Resolver
	}
	return net.DefaultResolver
}

func ipNetwork(network string) string {
	switch network {
	case "tcp4", "udp4":
		return "ip4"
	case "tcp6", "udp6":
		return "ip6"
	}
	return "ip"
}

// ClientOptions shape the HTTP client of Client.
type ClientOptions struct {
	// MaxRedirects bounds the redirects followed (default 5; negative: none).
	MaxRedirects int
	// Timeout bounds a whole request, body included (0: none; use the
	// request's context).
	Timeout time.Duration
}

// ErrTooManyRedirects is returned when a chain of redirects is longer
// than ClientOptions.MaxRedirects.
var ErrTooManyRedirects = errors.New("too many redirects")

// Client returns an HTTP client whose every connection, redirects
// included, goes through the Guard, without environment proxies.
func (g *Guard) Client(o ClientOptions) *http.Client {
	max := o.MaxRedirects
	if max == 0 {
		max = 5
	}
	tr := &http.Transport{
		Proxy:                 nil,
		DialContext:           g.DialContext,
		ForceAttemptHTTP2:     true,
		MaxIdleConns:          16,
		IdleConnTimeout:       30 * time.Second,
		TLSHandshakeTimeout:   10 * time.Second,
		ResponseHeaderTimeout: 30 * time.Second,
	}
	return &http.Client{
		Transport: tr,
		Timeout:   o.Timeout,
		CheckRedirect: func(req *http.Request, via []*http.Request) error {
			if len(via) > max {
				return fmt.Errorf("%w (more than %d)", ErrTooManyRedirects, max)
			}
			if req.URL.Scheme != "http" && req.URL.Scheme != "https" {
				return fmt.Errorf("redirect to %s: only http and https are followed", req.URL.Scheme)
			}
			return nil
		},
	}
}
