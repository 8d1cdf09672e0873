package redact

import (
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
)

// minSecret is the shortest value masked by value: shorter ones would mask
// ordinary words.
const minSecret = 8

// A Redactor masks the secrets it has been told, wherever and however they
// appear, then applies the shape rules of String. Besides a secret itself,
// it finds the secret cut short (any run of 12 or more of its bytes, as
// cut -c1-20 leaves), reversed, in hex, URL-escaped, JSON-escaped and in
// base64 (standard or URL alphabet, padded or not, alone or inside a longer
// base64 text), also when line breaks, escape sequences or zero-width
// characters split it.
//
// The zero value knows no secret and masks by shape only. A Redactor is
// safe for concurrent use: Add may be called while String runs, as keys
// printed by a key command arrive.
type Redactor struct {
	mu  sync.Mutex // serialises Add
	idx atomic.Pointer[index]
}

// New returns a Redactor that knows secrets (see Add).
func New(secrets ...string) *Redactor {
	r := &Redactor{}
	r.Add(secrets...)
	return r
}

// Add teaches r more secrets; String masks them from its next call on.
// Values that cannot be told from ordinary text are left out: shorter than
// 8 bytes, references ($VAR, ${VAR}, <your-key>), numbers, booleans,
// fewer than 5 distinct bytes, or words, paths, host names and versions
// (localhost, production, anthropic/claude-sonnet-4, /run/user/1000). A
// URL adds its password, user name, query values and path segments that
// pass the same test, never its host. A PEM private key adds each line of
// its body, not its BEGIN and END lines, which every key of its kind
// shares: a line cut out of the key (sed -n 2p, cut) is masked in every
// form, the whole key as well, as its lines.
func (r *Redactor) Add(secrets ...string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	old := r.idx.Load()
	var list []string
	if old != nil {
		list = old.secrets
	}
	added := false
	for _, s := range secrets {
		for _, c := range Candidates(s) {
			if old != nil && old.known[c] || contains(list, c) {
				continue
			}
			list = append(list[:len(list):len(list)], c)
			added = true
		}
	}
	if added {
		r.idx.Store(newIndex(list))
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// String returns s with the known secrets masked, then the shapes String
// recognises. A nil Redactor masks by shape only.
func (r *Redactor) String(s string) string {
	if r != nil {
		if x := r.idx.Load(); x != nil && len(s) >= minSecret {
			s = x.mask(s)
		}
	}
	return String(s)
}

// Candidates returns the secrets Add learns from value (see Add): value
// itself, the credential parts of a URL or the body lines of a private
// key; nothing when it cannot be told from ordinary text.
func Candidates(value string) []string {
	v := strings.TrimSpace(value)
	if HasPrivateKey(v) {
		return PrivateKeyLines(v)
	}
	if strings.Contains(v, "://") {
		if u, err := url.Parse(v); err == nil && u.Scheme != "" && u.Host != "" {
			return urlSecrets(u)
		}
	}
	if maskable(v) {
		return []string{v}
	}
	return nil
}

func urlSecrets(u *url.URL) []string {
	var parts []string
	if u.User != nil {
		parts = append(parts, u.User.Username())
		if p, ok := u.User.Password(); ok {
			parts = append(parts, p)
		}
	}
	for _, vs := range u.Query() {
		parts = append(parts, vs...)
	}
	parts = append(parts, strings.Split(u.Path, "/")...)
	var out []string
	for _, p := range parts {
		if maskable(p) {
			out = append(out, p)
		}
	}
	return out
}

// maskable reports a value that can be masked by value without mangling
// ordinary text.
func maskable(v string) bool {
	if len(v) < minSecret || isPlaceholder(v) || structured(v) {
		return false
	}
	var seen [256]bool
	distinct := 0
	for i := 0; i < len(v) && distinct < 5; i++ {
		if !seen[v[i]] {
			seen[v[i]] = true
			distinct++
		}
	}
	return distinct >= 5
}

// PrivateKeyLines returns the body lines of the PEM private keys in v
// that pass Add's test, without their BEGIN and END lines and the headers
// of an encrypted key (Proc-Type: ..., DEK-Info: ...). Lines may be broken
// by line feeds, by the escape \n of a one-line variable or a JSON
// string, or by spaces.
func PrivateKeyLines(v string) []string {
	v = strings.ReplaceAll(v, `\n`, "\n")
	var out []string
	for {
		i := strings.Index(v, "-----BEGIN ")
		if i < 0 {
			return out
		}
		j := strings.Index(v[i:], "PRIVATE KEY-----")
		if j < 0 {
			return out
		}
		v = v[i+j+len("PRIVATE KEY-----"):]
		k := strings.Index(v, "-----END ")
		if k < 0 {
			k = len(v) // cut off before its END line
		}
		for _, f := range strings.Fields(v[:k]) {
			if !strings.HasSuffix(f, ":") && maskable(f) {
				out = append(out, f)
			}
		}
		v = v[k:]
	}
}
