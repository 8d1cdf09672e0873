package apiserver

import (
	"crypto/sha256"
	"crypto/subtle"
	"net/http"
	"slices"
	"strings"
)

// auth requires the bearer key on every request. Both sides are hashed
// first, so the comparison takes the same time whatever the length.
func (s *Server) auth(next http.Handler) http.Handler {
	want := sha256.Sum256([]byte(s.opts.Key))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
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
