package apiserver

import (
	"encoding/json"
	"net/http"
)

// apiError is OpenAI's error body.
type apiError struct {
	Message string  `json:"message"`
	Type    string  `json:"type"`
	Param   *string `json:"param"`
	Code    *string `json:"code"`
}

// Error types OpenAI clients know.
const (
	typeInvalidRequest = "invalid_request_error"
	typeServer         = "server_error"
	typeAPI            = "api_error"
	typeRateLimit      = "requests"
)

func writeError(w http.ResponseWriter, status int, typ, code, param, msg string) {
	e := apiError{Message: msg, Type: typ}
	if code != "" {
		e.Code = &code
	}
	if param != "" {
		e.Param = &param
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(map[string]apiError{"error": e})
}

func badRequest(w http.ResponseWriter, param, msg string) {
	writeError(w, http.StatusBadRequest, typeInvalidRequest, "", param, msg)
}

func notFound(w http.ResponseWriter, msg string) {
	writeError(w, http.StatusNotFound, typeInvalidRequest, "not_found", "", msg)
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}
