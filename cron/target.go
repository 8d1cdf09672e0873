package cron

import (
	"fmt"
	"net/url"
	"slices"
	"strings"

	"github.com/hermes-go/hermes/config"
)

// TargetKind is where a target delivers.
type TargetKind string

// Target kinds.
const (
	// Local keeps the answer in its output file only.
	Local TargetKind = "local"
	// Platform sends it to a chat of a gateway platform.
	Platform TargetKind = "platform"
	// Webhook POSTs it to a URL.
	Webhook TargetKind = "webhook"
)

// Target is a parsed delivery target.
type Target struct {
	Kind TargetKind
	// Platform, Chat and Thread name a platform's chat; Chat "" is the
	// platform's home channel.
	Platform, Chat, Thread string
	// URL is a webhook's address.
	URL string
}

// String is the target as ParseTarget reads it.
func (t Target) String() string {
	switch t.Kind {
	case Webhook:
		return t.URL
	case Platform:
		s := t.Platform
		if t.Chat != "" {
			s += ":" + t.Chat
		}
		if t.Thread != "" {
			s += ":" + t.Thread
		}
		return s
	}
	return "local"
}

// ParseTarget reads a delivery target: "local" (or ""), "PLATFORM" (its
// home channel), "PLATFORM:CHAT[:THREAD]", or an http(s) URL.
func ParseTarget(s string) (Target, error) {
	s = strings.TrimSpace(s)
	low := strings.ToLower(s)
	switch {
	case s == "" || low == "local":
		return Target{Kind: Local}, nil
	case strings.HasPrefix(low, "http://") || strings.HasPrefix(low, "https://"):
		u, err := url.Parse(s)
		if err != nil || u.Host == "" {
			return Target{}, fmt.Errorf("delivery target %q: not a usable URL", s)
		}
		return Target{Kind: Webhook, URL: s}, nil
	}
	parts := strings.SplitN(s, ":", 2)
	name := strings.ToLower(parts[0])
	if name == "" || strings.ContainsAny(name, " /") {
		return Target{}, fmt.Errorf("delivery target %q: use local, PLATFORM, PLATFORM:CHAT[:THREAD] or an http(s) URL", s)
	}
	if !slices.Contains(config.GatewayPlatformNames(), name) {
		return Target{}, fmt.Errorf("delivery target %q: %s is not a platform hermes delivers to (%s); use local, PLATFORM, PLATFORM:CHAT[:THREAD] or an http(s) URL",
			s, name, strings.Join(config.GatewayPlatformNames(), ", "))
	}
	t := Target{Kind: Platform, Platform: name}
	if len(parts) > 1 {
		t.Chat, t.Thread = config.SplitChat(name, parts[1])
		if t.Chat == "" {
			return Target{}, fmt.Errorf("delivery target %q: empty chat (write %s alone for its home channel)", s, name)
		}
	}
	return t, nil
}
