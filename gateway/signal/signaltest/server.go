package signaltest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"testing"
	"time"
)

// Options configure a Server.
type Options struct {
	// Account is the bot's number (default +15550000000).
	Account string
}

// Person is someone on Signal.
type Person struct {
	Number string
	UUID   string
	Name   string
}

// ID is how the bot names the person: the number, else the UUID.
func (p Person) ID() string {
	if p.Number != "" {
		return p.Number
	}
	return p.UUID
}

// Chat is a direct chat with a person (GroupID "") or a group.
type Chat struct {
	GroupID string
	With    Person // in a direct chat
}

// Ref is the chat's id as the adapter names it.
func (c Chat) Ref() string {
	if c.GroupID != "" {
		return c.GroupID
	}
	return c.With.ID()
}

// BotMessage is one of the bot's messages as its chat reads it now.
type BotMessage struct {
	Timestamp   int64
	Chat        string // Chat.Ref
	Text        string
	History     []string // the text sent, then after each edit
	Attachments []string // the data URIs or paths sent
	Quote       int64    // the timestamp of the message it quotes, 0 for none
	QuoteAuthor string
}

// Call is one JSON-RPC request the bot made, as it was answered.
type Call struct {
	Method string
	Chat   string // Chat.Ref of a send, an edit or a typing notice
	Edit   bool   // a send with editTimestamp
	Time   time.Time
	Code   int // 0 when it succeeded, else the JSON-RPC error code
	Params map[string]any
}

// Server is the fake daemon.
type Server struct {
	t       testing.TB
	srv     *httptest.Server
	account string
	start   int64

	mu       sync.Mutex
	changed  chan struct{}
	closed   chan struct{}
	clock    int64 // the last timestamp handed out
	events   []storedEvent
	seq      int64
	streams  map[*stream]bool
	down     bool
	msgs     []*BotMessage
	calls    []Call
	hold     chan struct{} // non-nil while sends are held
	held     int
	faults   []Fault
	limitEnd time.Time // a rate limit answered lasts until then
	early    int
	files    map[string]file
}

type file struct {
	data []byte
	from string // Chat.Ref it was sent in
}

// NewServer starts a fake daemon, closed when the test ends.
func NewServer(t testing.TB, o Options) *Server {
	if o.Account == "" {
		o.Account = "+15550000000"
	}
	s := &Server{t: t, account: o.Account, start: time.Now().UnixMilli(), changed: make(chan struct{}), closed: make(chan struct{}),
		streams: map[*stream]bool{}, files: map[string]file{}}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /api/v1/rpc", s.rpc)
	mux.HandleFunc("GET /api/v1/events", s.serveEvents)
	s.srv = httptest.NewServer(mux)
	t.Cleanup(func() {
		s.mu.Lock()
		close(s.closed)
		for st := range s.streams {
			st.drop()
		}
		s.mu.Unlock()
		s.srv.Close()
	})
	return s
}

// URL is the daemon's HTTP address (SIGNAL_HTTP_URL).
func (s *Server) URL() string { return s.srv.URL }

// Account is the bot's number (SIGNAL_ACCOUNT).
func (s *Server) Account() string { return s.account }

// now hands out a fresh timestamp: milliseconds, never twice the same.
func (s *Server) now() int64 {
	ts := max(time.Now().UnixMilli(), s.clock+1)
	s.clock = ts
	return ts
}

// notify wakes everything waiting for a change; s.mu is held.
func (s *Server) notify() {
	close(s.changed)
	s.changed = make(chan struct{})
}

// WaitFor waits until cond holds, checking it on each change; it
// reports whether cond held before the timeout.
func (s *Server) WaitFor(timeout time.Duration, cond func() bool) bool {
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	for {
		s.mu.Lock()
		changed := s.changed
		s.mu.Unlock()
		if cond() {
			return true
		}
		select {
		case <-changed:
		case <-deadline.C:
			return cond()
		}
	}
}

// BotMessages are the bot's messages in a chat (Chat.Ref), in order.
func (s *Server) BotMessages(chat string) []BotMessage {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []BotMessage
	for _, m := range s.msgs {
		if m.Chat == chat {
			c := *m
			c.History = append([]string(nil), m.History...)
			out = append(out, c)
		}
	}
	return out
}

// Calls are the bot's requests, in order; with methods, only those.
func (s *Server) Calls(methods ...string) []Call {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []Call
	for _, c := range s.calls {
		if len(methods) == 0 || contains(methods, c.Method) {
			out = append(out, c)
		}
	}
	return out
}

func contains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}

// Streams counts the event streams open now.
func (s *Server) Streams() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.streams)
}

// writeJSON answers a JSON-RPC request.
func writeJSON(w http.ResponseWriter, id json.RawMessage, result any, e *rpcErr) {
	ans := map[string]any{"jsonrpc": "2.0", "id": id}
	if e != nil {
		ans["error"] = e
	} else {
		ans["result"] = result
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(ans)
}

type rpcErr struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
	Data    any    `json:"data,omitempty"`
}

func tsString(ts int64) string { return strconv.FormatInt(ts, 10) }

func errorf(code int, format string, a ...any) *rpcErr {
	return &rpcErr{Code: code, Message: fmt.Sprintf(format, a...)}
}
