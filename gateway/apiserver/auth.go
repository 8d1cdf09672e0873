package apiserver

import (
	"crypto/sha256"
	"crypto/subtle"
	"net/http"
	"path"
	"slices"
	"strings"
)

// auth requires the bearer key on every request but webhook deliveries
// (POST /webhooks/NAME carries its route's signature instead). Both
// sides are hashed first, so the comparison takes the same time whatever
// the length. A server without a key (it has webhooks) serves those and
// /health, and answers anything else 401.
func (s *Server) auth(next http.Handler) http.Handler {
	want := sha256.Sum256([]byte(s.opts.Key))
	noKey := strings.TrimSpace(s.opts.Key) == ""
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if isWebhookPath(r.URL.Path) || noKey && (r.URL.Path == "/health" || r.URL.Path == "/v1/health") {
			next.ServeHTTP(w, r)
			return
		}
		if noKey {
			w.Header().Set("WWW-Authenticate", `Bearer realm="hermes"`)
			writeError(w, http.StatusUnauthorized, typeInvalidRequest, "no_api_key_configured", "",
				"This server has no API key, so it serves only webhooks (POST /webhooks/NAME) and /health. To use the API, set API_SERVER_KEY "+
					"in the environment or in $HERMES_HOME/.env, or gateway.api_server.key in config.yaml, restart, and send it as \"Authorization: Bearer <key>\".")
			return
		}
		token, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		got := sha256.Sum256([]byte(strings.TrimSpace(token)))
		if !ok || subtle.ConstantTimeCompare(got[:], want[:]) != 1 {
			w.Header().Set("WWW-Authenticate", `Bearer realm="hermes"`)
			msg := "Incorrect API key provided. Send the server's key (API_SERVER_KEY) as \"Authorization: Bearer <key>\"."
			if !ok {
				msg = "Missing API key. Send the server's key (API_SERVER_KEY) as \"Authorization: Bearer <key>\"."
			}
			writeError(w, http.StatusUnauthorized, typeInvalidRequest, "invalid_api_key", "", msg)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// cors answers browsers from the listed origins; with none listed it
// adds nothing, so browsers refuse cross-origin calls.
func (s *Server) cors(next http.Handler) http.Handler {
	origins := s.opts.CORSOrigins
	if len(origins) == 0 {
		return next
	}
	any := slices.Contains(origins, "*")
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		origin := r.Header.Get("Origin")
		if origin == "" || !(any || slices.Contains(origins, origin)) {
			next.ServeHTTP(w, r)
			return
		}
		h := w.Header()
		h.Set("Access-Control-Allow-Origin", origin)
		h.Add("Vary", "Origin")
		h.Set("Access-Control-Expose-Headers", sessionHeader)
		if r.Method == http.MethodOptions && r.Header.Get("Access-Control-Request-Method") != "" {
			// A preflight carries no credentials; the request after it does.
			h.Set("Access-Control-Allow-Methods", "GET, POST, DELETE, OPTIONS")
			h.Set("Access-Control-Allow-Headers", "Authorization, Content-Type, "+sessionHeader)
			h.Set("Access-Control-Max-Age", "600")
			w.WriteHeader(http.StatusNoContent)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// isWebhookPath reports a path the webhook route serves: /webhooks/NAME,
// clean (the mux redirects anything else), one segment.
func isWebhookPath(p string) bool {
	name, ok := strings.CutPrefix(p, "/webhooks/")
	return ok && name != "" && !strings.Contains(name, "/") && path.Clean(p) == p
}
