package apiserver

import (
	"errors"
	"net/http"

	"github.com/hermes-go/hermes/session"
)

// endpoints lists what this server serves, for GET /v1/capabilities.
var endpoints = []string{
	"POST /v1/chat/completions",
	"POST /v1/responses", "GET /v1/responses/{id}", "DELETE /v1/responses/{id}",
	"POST /v1/runs", "GET /v1/runs", "GET /v1/runs/{id}", "GET /v1/runs/{id}/events", "POST /v1/runs/{id}/stop",
	"POST /v1/runs/{id}/approval",
	"GET /v1/models", "GET /v1/models/{id}", "GET /v1/capabilities",
	"GET /health", "GET /v1/health", "GET /health/detailed",
}

// capabilities answers GET /v1/capabilities: the features a client may
// rely on. What this server does not offer (steering a run, the jobs
// and sessions APIs) is listed as false, not left out.
func (s *Server) capabilities(w http.ResponseWriter, r *http.Request) {
	images := s.opts.Runtime.AcceptsImages()
	writeJSON(w, http.StatusOK, map[string]any{
		"object":   "capabilities",
		"platform": "hermes-agent",
		"model":    s.opts.ModelName,
		"features": map[string]bool{
			"chat_completions":   true,
			"responses":          true,
			"runs":               true,
			"run_events":         true,
			"run_stop":           true,
			"run_steer":          false,
			"run_approval":       true,
			"run_list":           true,
			"idempotency_keys":   true,
			"streaming":          true,
			"tool_progress":      true,
			"reasoning_events":   true,
			"subagent_events":    true,
			"images":             images,
			"session_continuity": true,
			"conversations":      true,
			"jobs_api":           false,
			"sessions_api":       false,
			"webhooks":           len(s.opts.Webhooks) > 0,
		},
		"endpoints": endpoints,
		"limits": map[string]any{
			"max_concurrent_runs":   s.opts.MaxConcurrentRuns,
			"max_images":            maxImages,
			"max_body_bytes":        maxBody,
			"run_retention_seconds": int(s.runReg.ttl.Seconds()),
			"max_retained_runs":     s.runReg.maxRuns,
		},
		"approvals": map[string]any{"unattended": true, "mode": s.approvalMode(),
			"run_modes": []string{approvalsDeny, approvalsClient}, "choices": approvalChoices,
			"timeout_seconds": int(s.approvalTimeout().Seconds())},
	})
}

func (s *Server) approvalMode() string {
	if s.opts.AllowUnattended {
		return "allow"
	}
	return "deny"
}

// healthDetailed answers GET /health/detailed: whether the runtime and
// the session store can serve, and how busy the server is. A store that
// does not answer makes it 503.
func (s *Server) healthDetailed(w http.ResponseWriter, r *http.Request) {
	rt := s.opts.Runtime
	store := map[string]any{"reachable": true}
	status, code := "ok", http.StatusOK
	if st := rt.Store(); st == nil {
		store = map[string]any{"reachable": false, "error": "no session store"}
	} else if _, err := st.Get(r.Context(), "health-probe"); err != nil && !errors.Is(err, session.ErrNotFound) {
		store = map[string]any{"reachable": false, "error": err.Error()}
	}
	if store["reachable"] == false {
		status, code = "degraded", http.StatusServiceUnavailable
	}
	active, retained := s.runReg.counts()
	s.runs.mu.Lock()
	running := s.runs.running
	s.runs.mu.Unlock()
	ep := rt.Endpoint()
	writeJSON(w, code, map[string]any{
		"status":   status,
		"platform": "hermes-agent",
		"model":    s.opts.ModelName,
		"runtime":  map[string]any{"ready": true, "provider": ep.Provider, "model": ep.Model},
		"store":    store,
		"runs": map[string]any{
			"active": active, "retained": retained,
			"turns_running": running, "max_concurrent_runs": s.opts.MaxConcurrentRuns,
		},
		"active_runs":         active,
		"max_concurrent_runs": s.opts.MaxConcurrentRuns,
		"uptime_seconds":      now() - started,
	})
}
