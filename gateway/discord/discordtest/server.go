package discordtest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// apiPrefix is the REST API's path prefix, as discordgo v0.29 calls it.
const apiPrefix = "/api/v9"

// Server is a fake Discord: the REST API under /api/v9 and the gateway
// websocket under /gateway, on 127.0.0.1.
type Server struct {
	hs *httptest.Server

	mu            sync.Mutex
	token         string
	bot           User
	appID         string
	interval      time.Duration
	lastID        int64
	channels      map[string]*Channel
	messages      map[string]*Message
	order         map[string][]string // channel id -> message ids, oldest first
	typing        map[string]int
	attachments   map[string]Attachment // path -> file
	interactions  map[string]*Interaction
	answered      map[string]chan struct{} // closed at an interaction's first response
	byToken       map[string]*Interaction
	requests      []Request
	failures      []failure
	ops           []Op
	conns         []*conn
	session       *session
	backlog       []event // dispatched before any session existed
	identifies    int
	resumes       int
	dms           map[string]string // user id -> DM channel id
	contentIntent bool
	closed        bool
	commands      []Command
	// commandsSignal is closed at the next accepted bulk overwrite.
	commandsSignal chan struct{}
	// held, while not nil, keeps interaction responses waiting until it
	// is closed.
	held chan struct{}
	// changed is closed and replaced at every change (see WaitFor).
	changed chan struct{}
	// quit is closed by Close: held calls and sockets give up.
	quit chan struct{}
	// holds keep REST calls unanswered until released; heldCalls counts
	// the calls each hold keeps now.
	holds     []*hold
	heldCalls map[holdKey]int
	// socketHold, while not nil, keeps new gateway sockets waiting.
	socketHold  chan struct{}
	heldSockets int
	// limitedUntil is when an enforced rate limit of a channel passes;
	// early counts the writes to a channel refused before it did.
	limitedUntil map[string]time.Time
	early        int
}

// NewServer starts a fake Discord whose bot is "hermes" (id
// "1000000000000000001") with the token "test-token". With a non-nil t it
// closes when the test ends; with a nil t, call Close.
func NewServer(t testing.TB) *Server {
	s := &Server{
		token:          "test-token",
		bot:            User{ID: "1000000000000000001", Username: "hermes", Bot: true},
		appID:          "1000000000000000002",
		interval:       41250 * time.Millisecond,
		lastID:         1200000000000000000,
		channels:       map[string]*Channel{},
		messages:       map[string]*Message{},
		order:          map[string][]string{},
		typing:         map[string]int{},
		attachments:    map[string]Attachment{},
		interactions:   map[string]*Interaction{},
		answered:       map[string]chan struct{}{},
		byToken:        map[string]*Interaction{},
		dms:            map[string]string{},
		contentIntent:  true,
		commandsSignal: make(chan struct{}),
		changed:        make(chan struct{}),
		quit:           make(chan struct{}),
		heldCalls:      map[holdKey]int{},
		limitedUntil:   map[string]time.Time{},
	}
	s.hs = httptest.NewServer(s.routes())
	if t != nil {
		t.Cleanup(s.Close)
	}
	return s
}

// URL is the base URL to give the adapter (its APIURL): REST calls go to
// URL()+"/api/v9/...".
func (s *Server) URL() string { return s.hs.URL }

// GatewayURL is the websocket URL GET /gateway answers.
func (s *Server) GatewayURL() string { return "ws" + strings.TrimPrefix(s.hs.URL, "http") + "/gateway" }

// Close drops every websocket and stops the server.
func (s *Server) Close() {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return
	}
	s.closed = true
	close(s.quit) // held calls and sockets give up
	conns := slices.Clone(s.conns)
	if s.held != nil {
		close(s.held) // Close waits for every request being served
		s.held = nil
	}
	s.mu.Unlock()
	for _, c := range conns {
		c.drop()
	}
	s.hs.CloseClientConnections()
	s.hs.Close()
}

// Token is the bot token the fake accepts (without the "Bot " prefix).
func (s *Server) Token() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.token
}

// SetToken changes the token the fake accepts.
func (s *Server) SetToken(token string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.token = token
}

// Bot is the bot's own user.
func (s *Server) Bot() User {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.bot
}

// SetHeartbeatInterval sets the interval HELLO asks for on connections
// opened from now on (Discord's is 41.25 s).
func (s *Server) SetHeartbeatInterval(d time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.interval = d
}

// AddChannel adds a guild channel, a thread or a DM channel.
func (s *Server) AddChannel(c Channel) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.addChannelLocked(c)
}

func (s *Server) addChannelLocked(c Channel) *Channel {
	if old, ok := s.channels[c.ID]; ok {
		return old
	}
	cp := c
	s.channels[c.ID] = &cp
	return &cp
}

// Messages returns a channel's messages as its members see them, oldest
// first: each with its latest content and buttons. Responses to
// interactions are among them unless ephemeral (see Interactions).
func (s *Server) Messages(channelID string) []Message {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []Message
	for _, id := range s.order[channelID] {
		out = append(out, cloneMessage(s.messages[id]))
	}
	return out
}

// Message returns one message by id.
func (s *Server) Message(id string) (Message, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	m, ok := s.messages[id]
	if !ok {
		return Message{}, false
	}
	return cloneMessage(m), true
}

// Typing counts the typing indicators the bot started in a channel.
func (s *Server) Typing(channelID string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.typing[channelID]
}

// HoldInteractionResponses keeps the bot's responses to interactions
// (POST /interactions/{id}/{token}/callback) waiting, as a slow network
// would, until release is called.
func (s *Server) HoldInteractionResponses() (release func()) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.held == nil {
		s.held = make(chan struct{})
	}
	held := s.held
	return func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		if s.held == held {
			close(held)
			s.held = nil
		}
	}
}

// Interactions returns every button press and slash command, with what
// the bot answered.
func (s *Server) Interactions() []Interaction {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []Interaction
	for _, in := range s.interactions {
		c := *in
		c.Callbacks = slices.Clone(in.Callbacks)
		c.Replies = slices.Clone(in.Replies)
		out = append(out, c)
	}
	slices.SortFunc(out, func(a, b Interaction) int { return compareIDs(a.ID, b.ID) })
	return out
}

// Answered returns a channel that is closed once the bot responded to an
// interaction (its first callback was accepted).
func (s *Server) Answered(interactionID string) <-chan struct{} {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.answeredLocked(interactionID)
}

func (s *Server) answeredLocked(id string) chan struct{} {
	c, ok := s.answered[id]
	if !ok {
		c = make(chan struct{})
		s.answered[id] = c
	}
	return c
}

// Requests returns every REST call so far, in arrival order.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.requests)
}

// RequestsTo returns the REST calls with this method and path (without
// /api/v9), in arrival order.
func (s *Server) RequestsTo(method, path string) []Request {
	var out []Request
	for _, r := range s.Requests() {
		if r.Method == method && r.Path == path {
			out = append(out, r)
		}
	}
	return out
}

// Ops returns every payload clients sent on gateway websockets.
func (s *Server) Ops() []Op {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.ops)
}

// Identifies counts the IDENTIFY payloads the gateway accepted (new
// sessions); Resumes counts the sessions resumed.
func (s *Server) Identifies() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.identifies
}

// Resumes counts the RESUME payloads that resumed a session.
func (s *Server) Resumes() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.resumes
}

// discordEpoch is the first millisecond of 2015, where snowflakes count
// from.
const discordEpoch = 1420070400000

// newIDLocked returns the next id: a snowflake of the current time, as
// Discord's are (the time is in the bits above the 22nd), always larger
// than the last.
func (s *Server) newIDLocked() string {
	id := (time.Now().UnixMilli() - discordEpoch) << 22
	s.lastID = max(s.lastID+1, id)
	return strconv.FormatInt(s.lastID, 10)
}

func compareIDs(a, b string) int {
	if len(a) != len(b) {
		return len(a) - len(b)
	}
	return strings.Compare(a, b)
}

func cloneMessage(m *Message) Message {
	c := *m
	c.History = slices.Clone(m.History)
	c.Mentions = slices.Clone(m.Mentions)
	c.Attachments = slices.Clone(m.Attachments)
	c.Buttons = make([][]Button, len(m.Buttons))
	for i, row := range m.Buttons {
		c.Buttons[i] = slices.Clone(row)
	}
	if len(c.Buttons) == 0 {
		c.Buttons = nil
	}
	return c
}

// WaitFor blocks until cond holds, checking it now and after every
// change the fake sees (a REST call arriving or answered, an event, a
// socket opened or closed, a call held or let go), or until timeout
// passes; it reports whether cond held. cond may call the Server's
// methods.
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

// notifyLocked wakes everything waiting for a change.
func (s *Server) notifyLocked() {
	close(s.changed)
	s.changed = make(chan struct{})
}

// writeJSON answers with a JSON body.
func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	if v != nil {
		_ = json.NewEncoder(w).Encode(v)
	}
}

// apiError answers as Discord does when it refuses a call.
func apiError(w http.ResponseWriter, status, code int, message string) {
	writeJSON(w, status, map[string]any{"code": code, "message": message})
}

func (s *Server) String() string { return fmt.Sprintf("discordtest.Server(%s)", s.hs.URL) }
