package netallow

import (
	"strings"
	"testing"
)

func TestAllowlistMatchesDomainsSuffixesAndListedAddresses(t *testing.T) {
	a, err := NewAllowlist([]string{"Registry.NPMjs.org.", "*.example.com", "10.0.0.5", "[::1]"})
	if err != nil {
		t.Fatal(err)
	}
	for host, want := range map[string]bool{
		"registry.npmjs.org":      true,
		"REGISTRY.npmjs.org.":     true,
		"npmjs.org":               false,
		"evil-registry.npmjs.org": false,
		"registry.npmjs.org.evil": false,
		"a.example.com":           true,
		"a.b.example.com":         true,
		"example.com":             false, // *.example.com is its subdomains only
		"badexample.com":          false,
		"10.0.0.5":                true,
		"::ffff:10.0.0.5":         true,
		"10.0.0.6":                false,
		"::1":                     true,
		"[::1]":                   true,
		"":                        false,
	} {
		if got := a.Allows(host); got != want {
			t.Errorf("Allows(%q) = %v, want %v", host, got, want)
		}
	}
	if a.Len() != 4 {
		t.Errorf("Len() = %d, want 4", a.Len())
	}
	a.Grant("Pkg.Example.org")
	if !a.Allows("pkg.example.org") || a.Allows("other.example.org") {
		t.Error("a granted host must be allowed, and only it")
	}
	var none *Allowlist
	if none.Allows("registry.npmjs.org") || (&Allowlist{}).Allows("registry.npmjs.org") {
		t.Error("an empty allowlist allows nothing")
	}
}

func TestDomainPatternsNeverMatchAddresses(t *testing.T) {
	a, err := NewAllowlist([]string{"*.0.0.127.in-addr.arpa", "*.1"})
	if err != nil {
		t.Fatal(err)
	}
	if a.Allows("127.0.0.1") || a.Allows("10.0.0.1") {
		t.Error("an IP address matched a domain pattern")
	}
}

func TestParsePatternRefusesWhatIsNotAHost(t *testing.T) {
	for _, bad := range []string{"", "https://pypi.org", "pypi.org/simple", "pypi.org:443", "*", "*.", "**.x.org", "a..b", "-a.org", "a b.org", "pypi.org*"} {
		if _, err := ParsePattern(bad); err == nil || !strings.Contains(err.Error(), "is not a domain") {
			t.Errorf("ParsePattern(%q) = %v, want an error saying what is allowed", bad, err)
		}
	}
	for in, want := range map[string]string{"PyPI.org": "pypi.org", "*.Example.COM.": "*.example.com", "::ffff:1.2.3.4": "1.2.3.4", "[2001:db8::1]": "2001:db8::1"} {
		if got, err := ParsePattern(in); err != nil || got != want {
			t.Errorf("ParsePattern(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	if _, err := NewAllowlist(Defaults); err != nil {
		t.Errorf("the defaults: %v", err)
	}
}
