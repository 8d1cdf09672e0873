package harvest

import (
	"net/url"
	"strings"

	"github.com/hermes-go/hermes/redact"
)

// Environ returns the secrets an environment holds, given as os.Environ
// gives it ("NAME=value"): the values of the variables whose name marks a
// secret or whose value is shaped like one (redact.SecretVariable), and
// URLs with a password.
func Environ(environ []string) []string {
	var out []string
	for _, kv := range environ {
		name, v, ok := strings.Cut(kv, "=")
		if !ok || v == "" {
			continue
		}
		if redact.SecretVariable(name, v) || urlWithPassword(v) {
			out = append(out, v)
		}
	}
	return out
}

// urlWithPassword reports a URL that carries a password
// (scheme://user:password@host).
func urlWithPassword(v string) bool {
	if !strings.Contains(v, "://") || !strings.Contains(v, "@") {
		return false
	}
	u, err := url.Parse(strings.TrimSpace(v))
	if err != nil || u.User == nil {
		return false
	}
	_, ok := u.User.Password()
	return ok
}
