package mattermost

import (
	"net/http"
	"testing"
	"time"

	"github.com/hermes-go/hermes/gateway"
)

func TestStripMention(t *testing.T) {
	for _, c := range []struct {
		in, want string
		found    bool
	}{
		{"@hermes look", "look", true},
		{"look @Hermes, now", "look , now", true},
		{"hey @hermes. what now", "hey . what now", true},
		{"@hermes-two look", "@hermes-two look", false},
		{"@hermes.bot look", "@hermes.bot look", false},
		{"mail me@hermes look", "mail me@hermes look", false},
		{"@hermesbot", "@hermesbot", false},
		{"a @hermes b @hermes", "a b", true},
	} {
		got, found := stripMention(c.in, "hermes")
		if got != c.want || found != c.found {
			t.Errorf("stripMention(%q) = %q, %v; want %q, %v", c.in, got, found, c.want, c.found)
		}
	}
}

func TestEscapeKeepsPlainTextWithinAPost(t *testing.T) {
	long := make([]byte, 16000)
	for i := range long {
		long[i] = '*'
	}
	if got := text(outboundPlain(string(long))); got != string(long) {
		t.Fatal("a plain text the backslashes would make too long was escaped")
	}
	if got := text(outboundPlain("a*b")); got != `a\*b` {
		t.Fatalf("escaped %q", got)
	}
}

func outboundPlain(s string) gateway.Outbound { return gateway.Outbound{Text: s, Plain: true} }

// A 429's wait is Retry-After, else X-RateLimit-Reset, else a second.
func TestRetryAfter(t *testing.T) {
	for _, c := range []struct {
		h    http.Header
		want time.Duration
	}{
		{http.Header{"Retry-After": {"4"}, "X-Ratelimit-Reset": {"9"}}, 4 * time.Second},
		{http.Header{"X-Ratelimit-Reset": {"9"}}, 9 * time.Second},
		{http.Header{}, time.Second},
	} {
		if got := retryAfter(c.h); got != c.want {
			t.Errorf("retryAfter(%v) = %s, want %s", c.h, got, c.want)
		}
	}
}
