package llmtest

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/hermes-go/hermes/llm"
)

// Server is a fake model provider on 127.0.0.1 that answers each request
// with the next scripted Reply, in the request's wire format.
type Server struct {
	hs        *httptest.Server
	done      chan struct{} // closed by Close: releases hanging and delayed replies
	closeOnce sync.Once
	hanging   chan *Request

	mu              sync.Mutex
	next            int // index of the next request
	queue           []Reply
	handler         func(*Request) Reply
	key             string
	requests        []*Request
	allowUnexpected bool
	noValidation    bool
	dialect         Dialect
	models          []string // served at GET .../models once SetModels is called
}

// NewServer starts a server. With a non-nil t, the server closes when the
// test ends, and the test fails if a request arrived that the script could
// not answer (see Unexpected). With a nil t, call Close.
func NewServer(t testing.TB) *Server {
	s := &Server{done: make(chan struct{}), hanging: make(chan *Request, 64)}
	s.hs = httptest.NewServer(http.HandlerFunc(s.serveHTTP))
	if t != nil {
		t.Cleanup(func() {
			s.Close()
			s.mu.Lock()
			allow := s.allowUnexpected
			s.mu.Unlock()
			if allow {
				return
			}
			for _, r := range s.Unexpected() {
				t.Errorf("llmtest: request %d (%s %s): %s", r.Index, r.Method, r.Path, r.Problem)
			}
		})
	}
	return s
}

// URL is the base URL for OpenAI-style clients, ending in /v1: Chat
// Completions are served at URL()+"/chat/completions" and Responses at
// URL()+"/responses". Any path ending in /chat/completions, /responses or
// /messages is served, so provider-style prefixes (/api/v1) work too.
func (s *Server) URL() string { return s.hs.URL + "/v1" }

// AnthropicURL is the base URL for Anthropic clients, which append
// /v1/messages.
func (s *Server) AnthropicURL() string { return s.hs.URL }

// Enqueue appends replies to the script. Each request takes the first
// reply left, in arrival order.
func (s *Server) Enqueue(replies ...Reply) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.queue = append(s.queue, replies...)
}

// Handle sets a function that answers requests when no enqueued reply is
// left. It is called on the request's goroutine, without locks held, so it
// may use the Server.
func (s *Server) Handle(h func(*Request) Reply) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.handler = h
}

// RequireKey makes the server answer 401, with the real provider's body,
// to any request that does not carry key: as a Bearer token for OpenAI
// formats, as x-api-key or a Bearer token for Anthropic. A rejected
// request takes no reply from the script. An empty key accepts anything.
func (s *Server) RequireKey(key string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.key = key
}

// SkipValidation turns off the request checks real providers make (tool
// results answering calls, required fields, ...): every parsable request
// is then answered from the script.
func (s *Server) SkipValidation() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.noValidation = true
}

// AllowUnexpected keeps the test from failing on unexpected requests, for
// tests that run the script out or send invalid requests on purpose.
func (s *Server) AllowUnexpected() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.allowUnexpected = true
}

// Requests returns every request received so far, in arrival order.
func (s *Server) Requests() []*Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := slices.Clone(s.requests)
	slices.SortFunc(out, func(a, b *Request) int { return a.Index - b.Index })
	return out
}

// Unexpected returns the requests the script could not answer: it had run
// out, the path was unknown, or the request was invalid (each has a
// Problem). Requests rejected by RequireKey are not unexpected.
func (s *Server) Unexpected() []*Request {
	var out []*Request
	for _, r := range s.Requests() {
		if r.Problem != "" {
			out = append(out, r)
		}
	}
	return out
}

// Pending returns the number of enqueued replies not yet used.
func (s *Server) Pending() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.queue)
}

// Hanging delivers each request whose Hang reply has started holding it
// open, so a test can interrupt at that point without sleeping. It is
// buffered; deliveries beyond the buffer are dropped.
func (s *Server) Hanging() <-chan *Request { return s.hanging }

// Close releases hanging replies and shuts the server down. It is safe to
// call more than once.
func (s *Server) Close() {
	s.closeOnce.Do(func() {
		close(s.done)
		s.hs.CloseClientConnections()
		s.hs.Close()
	})
}

func (s *Server) serveHTTP(w http.ResponseWriter, hr *http.Request) {
	if hr.Method == http.MethodGet && strings.HasSuffix(strings.TrimSuffix(hr.URL.Path, "/"), "/models") && s.serveModels(w, hr) {
		return
	}
	body, err := io.ReadAll(hr.Body)
	if err != nil {
		http.Error(w, "llmtest: reading request body: "+err.Error(), http.StatusBadRequest)
		return
	}
	req := &Request{
		Format: formatOf(hr.URL.Path),
		Method: hr.Method,
		Path:   hr.URL.Path,
		Header: hr.Header.Clone(),
		Body:   body,
	}
	var fields struct {
		Model  string `json:"model"`
		Stream bool   `json:"stream"`
	}
	if json.Unmarshal(body, &req.JSON) == nil {
		_ = json.Unmarshal(body, &fields)
		req.Model, req.Stream = fields.Model, fields.Stream
	}

	s.mu.Lock()
	key, noValidation := s.key, s.noValidation
	s.mu.Unlock()

	// Decide first whether the request is answered from the script, so that
	// the index and the reply are taken together and replies follow the
	// order of the indexes.
	var status int
	var errBody string
	switch {
	case req.Format == "":
		req.Problem = fmt.Sprintf("no wire format is served at %s", req.Path)
		status, errBody = http.StatusNotFound, openAIErrorBody("invalid_request_error", "", fmt.Sprintf("Invalid URL (%s %s)", req.Method, req.Path))
	case req.Method != http.MethodPost:
		req.Problem = fmt.Sprintf("method %s is not served", req.Method)
		status, errBody = http.StatusMethodNotAllowed, openAIErrorBody("invalid_request_error", "", fmt.Sprintf("Invalid method for URL (%s %s)", req.Method, req.Path))
	case key != "" && !s.authorized(req, key):
		status, errBody = http.StatusUnauthorized, unauthorizedBody(req)
	default:
		if err := parse(body, req); err != nil && (!noValidation || req.JSON == nil) {
			req.Problem = "invalid request: " + err.Error()
			status, errBody = http.StatusBadRequest, invalidBody(req.Format, err)
		}
	}

	s.mu.Lock()
	req.Index = s.next
	s.next++
	var reply Reply
	queued := false
	if status == 0 && len(s.queue) > 0 {
		reply, queued = s.queue[0], true
		s.queue = s.queue[1:]
	}
	handler := s.handler
	s.mu.Unlock()

	switch {
	case status != 0:
		s.fail(w, req, status, errBody)
	case queued:
		s.respond(w, hr, req, &reply)
	case handler != nil:
		reply = handler(req)
		s.respond(w, hr, req, &reply)
	default:
		req.Problem = "the script ran out of replies"
		msg := fmt.Sprintf("llmtest: no scripted reply left for request %d (%s %s); enqueue more replies or set a handler", req.Index, req.Method, req.Path)
		if req.Format == llm.AnthropicMessages {
			s.fail(w, req, http.StatusInternalServerError, anthropicErrorBody("api_error", msg))
		} else {
			s.fail(w, req, http.StatusInternalServerError, openAIErrorBody("server_error", "", msg))
		}
	}
}

// publish makes req visible to Requests; req must not change afterwards.
func (s *Server) publish(req *Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.requests = append(s.requests, req)
}

// fail answers with an error body without using the script.
func (s *Server) fail(w http.ResponseWriter, req *Request, status int, body string) {
	req.Status = status
	s.publish(req)
	writeJSON(w, req, status, nil, []byte(body))
}

func (s *Server) authorized(req *Request, key string) bool {
	if req.Format == llm.AnthropicMessages {
		return req.Header.Get("X-Api-Key") == key || bearer(req) == key
	}
	return bearer(req) == key
}

func bearer(req *Request) string {
	v, _ := strings.CutPrefix(req.Header.Get("Authorization"), "Bearer ")
	return strings.TrimSpace(v)
}

// unauthorizedBody is the provider's 401 body for a missing or wrong key.
func unauthorizedBody(req *Request) string {
	if req.Format == llm.AnthropicMessages {
		if req.Header.Get("X-Api-Key") == "" && bearer(req) == "" {
			return anthropicErrorBody("authentication_error", "x-api-key header is required")
		}
		return AnthropicUnauthorizedBody
	}
	if bearer(req) == "" {
		return openAIErrorBody("invalid_request_error", "", "You didn't provide an API key. You need to provide your API key in an Authorization header using Bearer auth (i.e. Authorization: Bearer YOUR_KEY), or as the password field (with blank username) if you're accessing the API from your browser and are prompted for a username. You can obtain an API key from https://platform.openai.com/account/api-keys.")
	}
	b, _ := json.Marshal(map[string]any{"error": map[string]any{
		"message": fmt.Sprintf("Incorrect API key provided: %s. You can find your API key at https://platform.openai.com/account/api-keys.", maskKey(bearer(req))),
		"type":    "invalid_request_error", "param": nil, "code": "invalid_api_key",
	}})
	return string(b)
}

// maskKey hides a key the way OpenAI does in its 401 message.
func maskKey(k string) string {
	if len(k) <= 8 {
		return strings.Repeat("*", len(k))
	}
	return k[:3] + strings.Repeat("*", len(k)-7) + k[len(k)-4:]
}

func invalidBody(format llm.APIMode, err error) string {
	msg, param := err.Error(), ""
	var ir *invalidRequest
	if errors.As(err, &ir) {
		param = ir.param
	}
	if format == llm.AnthropicMessages {
		return anthropicErrorBody("invalid_request_error", msg)
	}
	return openAIErrorBody("invalid_request_error", param, msg)
}

// formatOf picks the wire format from the request path.
func formatOf(path string) llm.APIMode {
	path = strings.TrimSuffix(path, "/")
	switch {
	case strings.HasSuffix(path, "/chat/completions"):
		return llm.ChatCompletions
	case strings.HasSuffix(path, "/responses"):
		return llm.CodexResponses
	case strings.HasSuffix(path, "/messages"):
		return llm.AnthropicMessages
	}
	return ""
}

func parse(body []byte, req *Request) error {
	switch req.Format {
	case llm.ChatCompletions:
		return parseChat(body, req)
	case llm.CodexResponses:
		return parseResponses(body, req)
	default:
		return parseAnthropic(body, req)
	}
}
