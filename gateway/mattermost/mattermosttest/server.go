package mattermosttest

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// The bot the fake serves.
const (
	Token       = "hermes-test-token-0123456789"
	BotID       = "hermesbot0000000000000000a"
	BotUsername = "hermes"
	TeamID      = "hermesteam000000000000000a"
)

// Server is the fake Mattermost.
type Server struct {
	t  testing.TB
	hs *httptest.Server

	mu         sync.Mutex
	changed    chan struct{} // closed and replaced on every change
	calls      []Call
	unexpected []string
	allowUnexp bool
	users      map[string]string // id -> username
	channels   map[string]*channel
	posts      map[string]*Post
	ephemerals []Ephemeral
	sockets    []*socket
	files      map[string][]byte
	fileInfo   map[string]fileMeta
	clock      int64 // ms of the last post made

	failures     map[string][]Failure
	holds        map[string]chan struct{}
	held         map[string]int
	limitedUntil map[string]time.Time
	early        int
}

type fileMeta struct{ name, mime string }

type channel struct {
	id, typ string
	posts   []*Post
}

// Post is a post as the channel's members read it.
type Post struct {
	ID        string
	ChannelID string
	RootID    string
	UserID    string
	Message   string // as posted, Markdown
	CreateAt  int64  // ms
	UpdateAt  int64
	FileIDs   []string
	// Buttons are the interactive buttons under the post, row by row (an
	// attachment is a row).
	Buttons [][]Button
	// History is the message after it was posted, then after each edit.
	History []string
	// ChannelType and Mentions are what the posted event said.
	ChannelType string
	Mentions    []string
}

// Button is an interactive message button of a post.
type Button struct {
	ID, Label string
	URL       string          // the integration URL
	Context   json.RawMessage // the integration context, as the bot set it
}

// Shown is the message as Mattermost renders it: backslash escapes of
// punctuation show as the character alone.
func (p Post) Shown() string { return Render(p.Message) }

// Render shows Markdown text the way a reader sees its characters.
func Render(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) && strings.IndexByte("\\`*_{}[]()#+-.!|<>~", s[i+1]) >= 0 {
			i++
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// Ephemeral is a message only one person saw: the answer to their
// button press, or an ephemeral post.
type Ephemeral struct {
	ChannelID, UserID, Text string
}

// Call is one REST request the server received.
type Call struct {
	// Name is the endpoint: "users.me", "posts.create", "posts.patch",
	// "posts.get", "posts.ephemeral", "channel.posts", "users.channels", "users.get",
	// "typing", "files.upload", "files.get", "websocket".
	Name      string
	ChannelID string
	Status    int // the HTTP status answered
	Time      time.Time
}

// NewServer starts a fake Mattermost on 127.0.0.1; it stops when the
// test ends.
func NewServer(t testing.TB) *Server {
	s := &Server{
		t: t, changed: make(chan struct{}),
		users: map[string]string{BotID: BotUsername}, channels: map[string]*channel{}, posts: map[string]*Post{},
		files: map[string][]byte{}, fileInfo: map[string]fileMeta{}, failures: map[string][]Failure{}, holds: map[string]chan struct{}{},
		held: map[string]int{}, limitedUntil: map[string]time.Time{},
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /api/v4/websocket", s.serveSocket)
	mux.HandleFunc("GET /api/v4/users/me", s.api("users.me", s.usersMe))
	mux.HandleFunc("GET /api/v4/users/me/channels", s.api("users.channels", s.usersChannels))
	mux.HandleFunc("GET /api/v4/users/{id}", s.api("users.get", s.usersGet))
	mux.HandleFunc("POST /api/v4/users/me/typing", s.api("typing", s.typing))
	mux.HandleFunc("POST /api/v4/posts", s.api("posts.create", s.postsCreate))
	mux.HandleFunc("GET /api/v4/posts/{id}", s.api("posts.get", s.postsGet))
	mux.HandleFunc("PUT /api/v4/posts/{id}/patch", s.api("posts.patch", s.postsPatch))
	mux.HandleFunc("POST /api/v4/posts/ephemeral", s.api("posts.ephemeral", s.postsEphemeral))
	mux.HandleFunc("GET /api/v4/channels/{id}/posts", s.api("channel.posts", s.channelPosts))
	mux.HandleFunc("POST /api/v4/files", s.api("files.upload", s.filesUpload))
	mux.HandleFunc("GET /api/v4/files/{id}", s.api("files.get", s.filesGet))
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		s.unexpectedf("%s %s", r.Method, r.URL.Path)
		apiErr(w, http.StatusNotFound, "api.context.404.app_error", "Sorry, we could not find the page.")
	})
	s.hs = httptest.NewServer(mux)
	t.Cleanup(func() {
		s.Close()
		s.mu.Lock()
		defer s.mu.Unlock()
		if len(s.unexpected) > 0 && !s.allowUnexp {
			t.Errorf("mattermosttest: unexpected requests:\n  %s", strings.Join(s.unexpected, "\n  "))
		}
	})
	return s
}

// URL is the server's base, http://127.0.0.1:PORT (MATTERMOST_URL).
func (s *Server) URL() string { return s.hs.URL }

// Close closes every socket and stops the server.
func (s *Server) Close() {
	s.DropSockets()
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

// AddUser names a person (GET /users/{id} answers it).
func (s *Server) AddUser(id, username string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.users[id] = username
}

// AddChannel makes a channel the bot is a member of: typ is "D" for a
// direct message, "O" public, "P" private, "G" a group message.
func (s *Server) AddChannel(id, typ string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.channels[id] = &channel{id: id, typ: typ}
}

// Calls returns the requests received for name, or all when name is "".
func (s *Server) Calls(name string) []Call {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []Call
	for _, c := range s.calls {
		if name == "" || c.Name == name {
			out = append(out, c)
		}
	}
	return out
}

// Wait blocks until cond holds or ctx ends; cond is checked now and after
// every change to the fake.
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
			return fmt.Errorf("mattermosttest: condition not met: %w", context.Cause(ctx))
		}
	}
}

func (s *Server) notifyLocked() {
	close(s.changed)
	s.changed = make(chan struct{})
}

func (s *Server) unexpectedf(format string, args ...any) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.unexpected = append(s.unexpected, fmt.Sprintf(format, args...))
	s.notifyLocked()
}

// nowLocked is a post's creation time: the wall clock in ms, later than
// every earlier post's.
func (s *Server) nowLocked() int64 {
	s.clock = max(s.clock+1, time.Now().UnixMilli())
	return s.clock
}

// newIDLocked makes a 26-character id.
func (s *Server) newIDLocked() string {
	return fmt.Sprintf("post%022d", len(s.posts)+1)
}

func apiErr(w http.ResponseWriter, status int, id, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]any{"id": id, "message": msg, "status_code": status})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}
