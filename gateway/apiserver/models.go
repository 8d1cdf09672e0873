package apiserver

import "net/http"

func (s *Server) model() map[string]any {
	return map[string]any{"id": s.opts.ModelName, "object": "model", "created": started, "owned_by": "hermes"}
}

// started is when the process started: the listed model's creation time.
var started = now()

func (s *Server) listModels(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, map[string]any{"object": "list", "data": []any{s.model()}})
}

func (s *Server) getModel(w http.ResponseWriter, r *http.Request) {
	if id := r.PathValue("id"); id != s.opts.ModelName {
		writeError(w, http.StatusNotFound, typeInvalidRequest, "model_not_found", "model",
			"The model '"+id+"' does not exist; this server serves '"+s.opts.ModelName+"'.")
		return
	}
	writeJSON(w, http.StatusOK, s.model())
}

func (s *Server) health(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, map[string]any{"status": "ok", "platform": "hermes-agent", "model": s.opts.ModelName})
}
