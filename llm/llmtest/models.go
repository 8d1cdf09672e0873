package llmtest

import (
	"encoding/json"
	"net/http"
	"slices"

	"github.com/hermes-go/hermes/llm"
)

// SetModels makes the server list ids at GET .../models (any path ending
// in /models, as /v1/models), in the OpenAI list format that
// OpenAI-compatible servers and Anthropic share. With RequireKey, a
// listing without the key gets the provider's 401. Listings take no reply
// from the script and are not among Requests. Without SetModels, GET
// /models is an unknown path, as before.
func (s *Server) SetModels(ids ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.models = append([]string{}, ids...)
}

// serveModels answers a model listing; false when no list is set.
func (s *Server) serveModels(w http.ResponseWriter, hr *http.Request) bool {
	s.mu.Lock()
	models, key := slices.Clone(s.models), s.key
	s.mu.Unlock()
	if models == nil {
		return false
	}
	req := &Request{Format: llm.ChatCompletions, Method: hr.Method, Path: hr.URL.Path, Header: hr.Header.Clone()}
	if hr.Header.Get("X-Api-Key") != "" {
		req.Format = llm.AnthropicMessages
	}
	w.Header().Set("Content-Type", "application/json")
	if key != "" && !s.authorized(req, key) {
		w.WriteHeader(http.StatusUnauthorized)
		_, _ = w.Write([]byte(unauthorizedBody(req)))
		return true
	}
	data := make([]map[string]any, len(models))
	for i, id := range models {
		data[i] = map[string]any{"id": id, "object": "model", "created": 1700000000, "owned_by": "llmtest"}
	}
	_ = json.NewEncoder(w).Encode(map[string]any{"object": "list", "data": data})
	return true
}
