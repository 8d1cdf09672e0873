package llmtest

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/hermes-go/hermes/llm"
)

// event is one SSE frame: "event: name" (omitted when name is empty, as in
// Chat Completions) and "data: data".
type event struct {
	name string
	data []byte
	// comment is an SSE comment line sent before the event, as keep-alive
	// traffic; it does not count as an event.
	comment string
}

// respond writes reply in req's format, honouring its timing and
// failure options. Everything about the answer is decided before req is
// published, so a published Request never changes.
func (s *Server) respond(w http.ResponseWriter, hr *http.Request, req *Request, r *Reply) {
	ctx := hr.Context()
	s.mu.Lock()
	dialect := s.dialect
	s.mu.Unlock()
	var body []byte
	var events []event
	switch {
	case r.isError():
		req.Status = r.Status
		body = []byte(r.Body)
		if r.Body == "" {
			body = []byte(defaultErrorBody(req.Format, r.Status))
		}
	case r.Raw != "":
		req.Status = http.StatusOK
		body = []byte(r.Raw)
	case req.Stream:
		req.Status = http.StatusOK
		events = render(newTurn(req, r, dialect))
	default:
		req.Status = http.StatusOK
		b, err := renderBody(newTurn(req, r, dialect))
		if err != nil {
			// A script that cannot be rendered is the test's mistake: answer
			// 500 and let Unexpected report it.
			req.Problem = "the reply cannot be sent: " + err.Error()
			s.fail(w, req, http.StatusInternalServerError, anthropicErrorBody("api_error", "llmtest: "+err.Error()))
			return
		}
		body = b
	}
	s.publish(req)

	if r.Delay > 0 {
		s.wait(ctx, r.Delay)
	}
	switch {
	case r.Hang && (r.CutAfter <= 0 || r.isError() || !req.Stream):
		s.hang(ctx, req)
	case r.isError():
		writeJSON(w, req, r.Status, r.Header, body)
	case r.Raw != "" && req.Stream:
		writeSSE(w, req, r.Header, body)
	case req.Stream:
		s.stream(ctx, w, req, r, events)
	case r.CutAfter > 0:
		cutJSON(w, req, r.Header, body)
	case r.EndAfter > 0:
		writeJSON(w, req, http.StatusOK, r.Header, body[:len(body)/2])
	default:
		writeJSON(w, req, http.StatusOK, r.Header, body)
	}
}

func render(t *turn) []event {
	switch t.req.Format {
	case llm.ChatCompletions:
		return chatEvents(t)
	case llm.CodexResponses:
		return responsesEvents(t)
	}
	return anthropicEvents(t)
}

func renderBody(t *turn) ([]byte, error) {
	switch t.req.Format {
	case llm.ChatCompletions:
		return chatBody(t), nil
	case llm.CodexResponses:
		return responsesBody(t), nil
	}
	return anthropicBody(t)
}

// stream writes events as server-sent events, flushing each, and breaks
// the stream as the reply asks.
func (s *Server) stream(ctx context.Context, w http.ResponseWriter, req *Request, r *Reply, events []event) {
	h := w.Header()
	setHeaders(h, req, r.Header)
	h.Set("Content-Type", "text/event-stream; charset=utf-8")
	h.Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	flusher, _ := w.(http.Flusher)
	flush := func() {
		if flusher != nil {
			flusher.Flush()
		}
	}
	flush()

	cut := len(events)
	broken := r.CutAfter > 0 || r.StreamError != ""
	if broken && r.CutAfter < cut {
		cut = r.CutAfter
	}
	if !broken && !r.Hang && r.EndAfter > 0 {
		// The handler returns after these: net/http ends the body cleanly.
		cut = min(r.EndAfter, cut)
	}
	// Events are flushed one by one only when paced; otherwise they go out
	// in as few writes as the buffers allow, which clients cannot tell apart.
	for i, ev := range events[:cut] {
		if i > 0 && r.ChunkDelay > 0 {
			flush()
			s.wait(ctx, r.ChunkDelay)
		}
		if _, err := w.Write(frame(ev)); err != nil {
			return
		}
	}
	flush()
	switch {
	case !broken:
	case r.Hang:
		s.hang(ctx, req)
	case r.StreamError != "":
		name := "error"
		if req.Format == llm.ChatCompletions {
			name = ""
		}
		_, _ = w.Write(frame(event{name: name, data: []byte(compact(r.StreamError))}))
		flush()
	default:
		// Drop the connection without the stream's terminating frame, as a
		// provider that fails mid-stream does.
		panic(http.ErrAbortHandler)
	}
}

// writeSSE sends a raw SSE body in one piece.
func writeSSE(w http.ResponseWriter, req *Request, extra http.Header, body []byte) {
	h := w.Header()
	setHeaders(h, req, extra)
	h.Set("Content-Type", "text/event-stream; charset=utf-8")
	h.Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(body)
}

func frame(ev event) []byte {
	b := make([]byte, 0, len(ev.data)+len(ev.name)+len(ev.comment)+16)
	if ev.comment != "" {
		b = append(b, ": "...)
		b = append(b, ev.comment...)
		b = append(b, "\n\n"...)
	}
	if ev.name != "" {
		b = append(b, "event: "...)
		b = append(b, ev.name...)
		b = append(b, '\n')
	}
	b = append(b, "data: "...)
	b = append(b, ev.data...)
	return append(b, "\n\n"...)
}

// wait sleeps d. If the request or the server ends first, it drops the
// connection instead of returning: a handler that returned would make
// net/http send an empty 200, which a client could take for a reply.
func (s *Server) wait(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return
	case <-ctx.Done():
	case <-s.done:
	}
	panic(http.ErrAbortHandler)
}

// hang holds the request until the client goes away or the server closes,
// then drops the connection.
func (s *Server) hang(ctx context.Context, req *Request) {
	select {
	case s.hanging <- req:
	default:
	}
	select {
	case <-ctx.Done():
	case <-s.done:
	}
	panic(http.ErrAbortHandler)
}

func setHeaders(h http.Header, req *Request, extra http.Header) {
	h.Set("X-Request-Id", "req_"+token(req.Index, "request", 0, 24))
	if req.Format == llm.AnthropicMessages {
		h.Set("Request-Id", "req_011C"+token(req.Index, "request", 0, 20))
	}
	for k, vs := range extra {
		h[http.CanonicalHeaderKey(k)] = append([]string(nil), vs...)
	}
}

func writeJSON(w http.ResponseWriter, req *Request, status int, extra http.Header, body []byte) {
	h := w.Header()
	setHeaders(h, req, extra)
	h.Set("Content-Type", "application/json")
	h.Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

// cutJSON announces the full body but sends half of it, then drops the
// connection: the client sees an unexpected EOF.
func cutJSON(w http.ResponseWriter, req *Request, extra http.Header, body []byte) {
	h := w.Header()
	setHeaders(h, req, extra)
	h.Set("Content-Type", "application/json")
	h.Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(body[:len(body)/2])
	if f, ok := w.(http.Flusher); ok {
		f.Flush()
	}
	panic(http.ErrAbortHandler)
}

// compact puts a JSON body on one line so it fits one SSE data field.
func compact(body string) string {
	var b bytes.Buffer
	if err := json.Compact(&b, []byte(body)); err == nil {
		return b.String()
	}
	return strings.ReplaceAll(body, "\n", " ")
}
