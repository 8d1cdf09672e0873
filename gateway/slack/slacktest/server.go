package slacktest

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"
)

// The workspace the fake serves.
const (
	BotToken  = "xoxb-hermes-test"
	AppToken  = "xapp-1-hermes-test"
	BotUserID = "UHERMES"
	BotID     = "BHERMES"
	BotName   = "hermes"
	TeamID    = "T0HERMES"
	TeamName  = "Hermes Test"
	AppID     = "A0HERMES"
)

// Options tune a Server.
type Options struct {
	// PingInterval is how often the server pings each socket: 0 means
	// every 5 seconds, a negative value never.
	PingInterval time.Duration
}

// Server is the fake Slack.
type Server struct {
	t  testing.TB
	hs *httptest.Server
	o  Options

	mu         sync.Mutex
	changed    chan struct{} // closed and replaced on every change
	calls      []Call
	unexpected []string
	allowUnexp bool
	failures   map[string][]Failure
	users      map[string]string // id -> display name
	channels   map[string]*channel
	files      map[string]*file
	ephemerals []Ephemeral
	tickets    map[string]bool
	sockets    []*socket
	envelopes  []*envelope
	events     *eventsTarget
	seq        int

	holds        map[string]chan struct{} // methods held, closed by Release
	held         map[string]int           // calls being held, by method
	limitedUntil map[string]time.Time     // channels under a rate limit
	early        int                      // calls made during a rate limit
}

// Call is one Web API request the server received.
type Call struct {
	Method string
	Token  string
	Params url.Values
	// Error is the error code the server answered ("" when ok), or
	// "http 429" for a rate limit.
	Error string
	// Time is when the request arrived.
	Time time.Time
}

// Failure scripts the answer to one call of a method.
type Failure struct {
	// Error is the error code of an {"ok":false} answer
	// ("channel_not_found", "invalid_blocks", ...).
	Error string
	// RetryAfter, when set, answers HTTP 429 with a Retry-After header
	// of that many whole seconds instead.
	RetryAfter time.Duration
	// Enforce, with RetryAfter on chat.postMessage or chat.update, keeps
	// the call's channel rate limited until Retry-After has passed: every
	// such call for it meanwhile is answered 429 too, and counted by
	// EarlyRetries.
	Enforce bool
	// Status, when set, answers that HTTP status with an HTML body, as
	// Slack's front end does when it fails (500, 503).
	Status int
}

// NewServer starts a fake Slack on 127.0.0.1; it stops when the test ends.
func NewServer(t testing.TB) *Server {
	return NewServerWith(t, Options{})
}

// NewServerWith starts a fake Slack with options.
func NewServerWith(t testing.TB, o Options) *Server {
	if o.PingInterval == 0 {
		o.PingInterval = 5 * time.Second
	}
	s := &Server{
		t:        t,
		o:        o,
		changed:  make(chan struct{}),
		failures: map[string][]Failure{},
		users:    map[string]string{},
		channels: map[string]*channel{},
		files:    map[string]*file{},
		tickets:  map[string]bool{},

		holds:        map[string]chan struct{}{},
		held:         map[string]int{},
		limitedUntil: map[string]time.Time{},
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/api/{method}", s.serveAPI)
	mux.HandleFunc("GET /link/", s.serveSocket)
	mux.HandleFunc("POST /upload/{id}", s.serveUpload)
	mux.HandleFunc("GET /files-pri/{id}/{name}", s.serveDownload)
	mux.HandleFunc("GET /signin", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		_, _ = w.Write([]byte("<html><body>Sign in to Hermes Test</body></html>"))
	})
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		s.unexpectedf("%s %s", r.Method, r.URL.Path)
		http.NotFound(w, r)
	})
	s.hs = httptest.NewServer(mux)
	t.Cleanup(func() {
		s.Close()
		s.mu.Lock()
		defer s.mu.Unlock()
		if len(s.unexpected) > 0 && !s.allowUnexp {
			t.Errorf("slacktest: unexpected requests:\n  %s", strings.Join(s.unexpected, "\n  "))
		}
	})
	return s
}

// URL is the server's base, http://127.0.0.1:PORT.
func (s *Server) URL() string { return s.hs.URL }

// APIURL is the Web API base, with its trailing slash, as slack-go's
// OptionAPIURL wants it.
func (s *Server) APIURL() string { return s.hs.URL + "/api/" }

// Close closes every socket and stops the server.
func (s *Server) Close() {
	s.mu.Lock()
	socks := append([]*socket(nil), s.sockets...)
	s.mu.Unlock()
	for _, k := range socks {
		k.close()
	}
	s.hs.CloseClientConnections()
	s.hs.Close()
}

// AllowUnexpected stops the test failing at cleanup for requests the
// fake does not serve.
func (s *Server) AllowUnexpected() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.allowUnexp = true
}

// Unexpected lists the requests the fake did not serve.
func (s *Server) Unexpected() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.unexpected...)
}

// Fail scripts the answers to a method's next calls, one Failure per
// call, in order.
func (s *Server) Fail(method string, f ...Failure) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.failures[method] = append(s.failures[method], f...)
}

// Calls returns the Web API requests received for method, or every
// request when method is "".
func (s *Server) Calls(method string) []Call {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []Call
	for _, c := range s.calls {
		if method == "" || c.Method == method {
			c.Params = cloneValues(c.Params)
			out = append(out, c)
		}
	}
	return out
}

// AddUser names a person of the workspace (users.info answers it). A
// person who posts without being added is named by their id.
func (s *Server) AddUser(id, displayName string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.users[id] = displayName
	s.notifyLocked()
}

// Wait blocks until cond holds or ctx ends; cond is checked now and after
// every change to the fake (a call, an ack, a socket opened or closed).
func (s *Server) Wait(ctx context.Context, cond func() bool) error {
	for {
		s.mu.Lock()
		ch := s.changed
		s.mu.Unlock()
		if cond() {
			return nil
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return fmt.Errorf("slacktest: condition not met: %w", context.Cause(ctx))
		}
	}
}

// Changed returns a channel that is closed at the next change to the
// fake, for waiting on the fake and something else at once.
func (s *Server) Changed() <-chan struct{} {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.changed
}

func (s *Server) notifyLocked() {
	close(s.changed)
	s.changed = make(chan struct{})
}

func (s *Server) notify() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.notifyLocked()
}

func (s *Server) unexpectedf(format string, args ...any) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.unexpected = append(s.unexpected, fmt.Sprintf(format, args...))
	s.notifyLocked()
}

// nextLocked numbers ids and timestamps.
func (s *Server) nextLocked() int {
	s.seq++
	return s.seq
}

// tsLocked makes a new message timestamp, later than every earlier one.
func (s *Server) tsLocked() string {
	n := s.nextLocked()
	return fmt.Sprintf("%d.%06d", 1700000000+n, 100+n)
}

func cloneValues(v url.Values) url.Values {
	out := url.Values{}
	for k, vs := range v {
		out[k] = append([]string(nil), vs...)
	}
	return out
}
