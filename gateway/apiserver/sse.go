package apiserver

import (
	"encoding/json"
	"net/http"
)

// sse writes a Server-Sent Events stream, flushing every event. Once a
// write fails (the client left) every later one reports false.
type sse struct {
	w      http.ResponseWriter
	rc     *http.ResponseController
	failed bool
}

func newSSE(w http.ResponseWriter) *sse {
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	h.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	return &sse{w: w, rc: http.NewResponseController(w)}
}

// data sends an unnamed event (what OpenAI's streams are made of).
func (s *sse) data(v any) bool { return s.event("", v) }

// event sends a named event.
func (s *sse) event(name string, v any) bool {
	b, err := json.Marshal(v)
	if err != nil {
		return false
	}
	buf := make([]byte, 0, len(b)+len(name)+16)
	if name != "" {
		buf = append(append(append(buf, "event: "...), name...), '\n')
	}
	buf = append(append(append(buf, "data: "...), b...), "\n\n"...)
	return s.write(buf)
}

// done ends an OpenAI stream.
func (s *sse) done() { s.write([]byte("data: [DONE]\n\n")) }

func (s *sse) write(b []byte) bool {
	if s.failed {
		return false
	}
	if _, err := s.w.Write(b); err != nil {
		s.failed = true
		return false
	}
	if err := s.rc.Flush(); err != nil {
		s.failed = true
		return false
	}
	return true
}
