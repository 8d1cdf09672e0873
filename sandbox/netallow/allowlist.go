// Package netallow says which hosts a sandboxed command may reach in
// allowlist mode: an Allowlist of exact domains (pypi.org), "*.suffix"
// patterns (*.example.com: its subdomains, not example.com itself) and IP
// addresses listed as such; a domain pattern never matches an IP
// address. Defaults are the package registries and forges allowed unless
// the configuration says otherwise.
//
// Concurrency: an Allowlist is safe for concurrent use.
package netallow

import (
	"fmt"
	"net/netip"
	"slices"
	"strings"
	"sync"
)

// Defaults are the domains allowlist mode lets through unless told
// otherwise: the package registries and forges a developer fetches from.
var Defaults = []string{
	// JavaScript
	"registry.npmjs.org", "registry.yarnpkg.com",
	// Python
	"pypi.org", "files.pythonhosted.org",
	// Go
	"proxy.golang.org", "sum.golang.org",
	// Rust
	"crates.io", "static.crates.io", "index.crates.io",
	// Ruby
	"rubygems.org", "index.rubygems.org",
	// Java and Kotlin
	"repo.maven.apache.org", "repo1.maven.org", "plugins.gradle.org", "services.gradle.org",
	// .NET, PHP, Dart
	"api.nuget.org", "repo.packagist.org", "pub.dev",
	// Debian and Ubuntu packages
	"deb.debian.org", "security.debian.org", "archive.ubuntu.com", "security.ubuntu.com",
	// Forges: clones, archives, release assets, raw files
	"github.com", "codeload.github.com", "objects.githubusercontent.com",
	"raw.githubusercontent.com", "release-assets.githubusercontent.com", "gitlab.com",
}

// Allowlist is the set of hosts a Server lets through: the patterns it
// was made with and the hosts granted since (Grant). The zero value
// allows nothing.
type Allowlist struct {
	exact    map[string]bool // domains and IP addresses, normalised
	suffixes []string        // ".example.com" for *.example.com

	mu      sync.Mutex
	granted map[string]bool
}

// NewAllowlist parses patterns (see ParsePattern); duplicates are kept
// once.
func NewAllowlist(patterns []string) (*Allowlist, error) {
	a := &Allowlist{exact: map[string]bool{}}
	for _, p := range patterns {
		norm, err := ParsePattern(p)
		if err != nil {
			return nil, err
		}
		if rest, ok := strings.CutPrefix(norm, "*"); ok {
			if !slices.Contains(a.suffixes, rest) {
				a.suffixes = append(a.suffixes, rest)
			}
			continue
		}
		a.exact[norm] = true
	}
	return a, nil
}

// ParsePattern checks one allowlist entry and returns it normalised
// (lower case, no trailing dot, IP addresses in canonical form): a domain
// such as registry.npmjs.org, "*." and a domain for its subdomains, or an
// IP address.
func ParsePattern(p string) (string, error) {
	s := strings.ToLower(strings.TrimSuffix(strings.TrimSpace(p), "."))
	if ip, err := netip.ParseAddr(strings.Trim(s, "[]")); err == nil {
		return ip.Unmap().String(), nil
	}
	domain, wild := strings.CutPrefix(s, "*.")
	if validDomain(domain) {
		if wild {
			return "*." + domain, nil
		}
		return domain, nil
	}
	return "", fmt.Errorf("%q is not a domain (registry.npmjs.org), a pattern for its subdomains (*.example.com) or an IP address", p)
}

// validDomain: dot-separated labels of letters, digits, '-' and '_', none
// empty, starting or ending with '-', at most 253 characters.
func validDomain(s string) bool {
	if s == "" || len(s) > 253 {
		return false
	}
	for _, label := range strings.Split(s, ".") {
		if label == "" || len(label) > 63 || label[0] == '-' || label[len(label)-1] == '-' {
			return false
		}
		for _, c := range label {
			if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
				return false
			}
		}
	}
	return true
}

// Normalize is host as the allowlist compares it: lower case, without a
// trailing dot or IPv6 brackets, an IP address in canonical form.
func Normalize(host string) (name string, isIP bool) {
	h := strings.ToLower(strings.TrimSuffix(strings.Trim(host, "[]"), "."))
	if ip, err := netip.ParseAddr(h); err == nil {
		return ip.Unmap().String(), true
	}
	return h, false
}

// Allows reports whether host (a name or an IP address, without a port)
// may be reached.
func (a *Allowlist) Allows(host string) bool {
	if a == nil {
		return false
	}
	h, isIP := Normalize(host)
	if h == "" || a.exact[h] {
		return h != ""
	}
	if !isIP {
		for _, s := range a.suffixes {
			if strings.HasSuffix(h, s) {
				return true
			}
		}
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.granted[h]
}

// Grant allows host from now on (an answer "session" or "always").
func (a *Allowlist) Grant(host string) {
	h, _ := Normalize(host)
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.granted == nil {
		a.granted = map[string]bool{}
	}
	a.granted[h] = true
}

// Len is how many patterns the allowlist was made with.
func (a *Allowlist) Len() int {
	if a == nil {
		return 0
	}
	return len(a.exact) + len(a.suffixes)
}
