package serve

import (
	"crypto/sha256"
	"crypto/subtle"
	"errors"
	"net/http"
	"strings"
)

// KeyEnv is the environment variable (or $HERMES_HOME/.env entry) that
// holds the bearer key of the HTTP transport.
const KeyEnv = "MCP_SERVER_KEY"

// ErrNoKey is why the HTTP transport does not start without a key.
var ErrNoKey = errors.New("hermes mcp serve --listen needs a bearer key: set " + KeyEnv +
	" (in the environment or $HERMES_HOME/.env); clients send it as \"Authorization: Bearer <key>\"")

// requireKey answers 401 to a request without "Authorization: Bearer
// key". Both sides are hashed first, so the comparison takes the same
// time whatever the length.
func requireKey(key string, next http.Handler) http.Handler {
	want := sha256.Sum256([]byte(key))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		token, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		got := sha256.Sum256([]byte(strings.TrimSpace(token)))
		if !ok || subtle.ConstantTimeCompare(got[:], want[:]) != 1 {
			w.Header().Set("WWW-Authenticate", `Bearer realm="hermes"`)
			msg := "missing bearer key: send the server's key (" + KeyEnv + ") as \"Authorization: Bearer <key>\""
			if ok {
				msg = "incorrect bearer key"
			}
			http.Error(w, msg, http.StatusUnauthorized)
			return
		}
		next.ServeHTTP(w, r)
	})
}
