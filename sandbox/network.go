package sandbox

import (
	"context"
	"fmt"
	"net"
	"slices"
	"strings"

	"github.com/hermes-go/hermes/sandbox/netallow"
	"github.com/hermes-go/hermes/sandbox/netproxy"
)

// NetworkMode is what network a sandboxed command gets.
type NetworkMode string

// The network modes. The zero value is off.
const (
	// NetworkOff: no network at all (an empty network namespace, and no
	// TCP through Landlock).
	NetworkOff NetworkMode = "off"
	// NetworkOn: the host's network, unrestricted.
	NetworkOn NetworkMode = "on"
	// NetworkAllowlist: only the hosts of Policy.NetworkAllow, through a
	// proxy in hermes; the command's own network namespace holds nothing
	// but loopback, so a command that ignores the proxy reaches nothing.
	NetworkAllowlist NetworkMode = "allowlist"
)

// ParseNetworkMode reads a network mode name; "" stays "" (the sandbox
// mode's default).
func ParseNetworkMode(s string) (NetworkMode, error) {
	switch m := NetworkMode(strings.TrimSpace(s)); m {
	case "", NetworkOff, NetworkOn, NetworkAllowlist:
		return m, nil
	}
	return "", fmt.Errorf("network mode %q is not on, off or allowlist", s)
}

// on reports whether the mode lets a command use the host's network
// directly.
func (m NetworkMode) on() bool { return m == NetworkOn }

// netOptions fills p's network from o: the mode (allowlist in
// workspace-write, off in read-only, unless o says) and the allowlist.
func (p *Policy) netOptions(o Options) error {
	mode, err := ParseNetworkMode(string(o.Network))
	if err != nil {
		return err
	}
	switch {
	case mode != "":
		p.Network = mode
	case o.Mode == ReadOnly:
		p.Network = NetworkOff
	default:
		p.Network = NetworkAllowlist
	}
	if !o.NoDefaultAllow {
		p.NetworkAllow = slices.Clone(netallow.Defaults)
	}
	for _, a := range o.NetworkAllow {
		norm, err := netallow.ParsePattern(a)
		if err != nil {
			return fmt.Errorf("sandbox.network.allow: %w", err)
		}
		if !slices.Contains(p.NetworkAllow, norm) {
			p.NetworkAllow = append(p.NetworkAllow, norm)
		}
	}
	p.NetworkAsk = o.NetworkAsk
	p.allow, err = netallow.NewAllowlist(p.NetworkAllow)
	return err
}

// allowlist is the session's allowlist: the one NewPolicy made, which
// every copy of p shares, or a new one for a Policy made by hand.
func (p Policy) allowlist() (*netallow.Allowlist, error) {
	if p.allow != nil {
		return p.allow, nil
	}
	return netallow.NewAllowlist(p.NetworkAllow)
}

// proxyServer is the proxy of one command of p.
func (p Policy) proxyServer() (*netproxy.Server, error) {
	allow, err := p.allowlist()
	if err != nil {
		return nil, fmt.Errorf("sandbox.network.allow: %w", err)
	}
	return &netproxy.Server{Allow: allow, Ask: p.NetworkAsk, Dial: p.dial}, nil
}

// dialFunc dials out for the proxy; tests replace the network with it.
type dialFunc = func(ctx context.Context, network, addr string) (net.Conn, error)
