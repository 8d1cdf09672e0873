package telegramtest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// Options configure a fake Bot API. The zero value works.
type Options struct {
	// Token is the bot's token; a request with any other gets 401
	// Unauthorized. Default "4242424242:TEST-token"; the bot's id is the
	// part before the colon.
	Token string
	// Username is the bot's @username without the @ (default
	// "hermes_test_bot"); Name its display name (default "Hermes").
	Username string
	Name     string
	// Now is the fake's clock: message dates, call times and flood waits.
	// Default time.Now.
	Now func() time.Time
	// WebhookRetry is how long the fake waits before posting an update
	// to the webhook again after the webhook refused it (default 50ms).
	WebhookRetry time.Duration
}

// Server is a fake Telegram Bot API for one bot, on 127.0.0.1. Its
// methods are safe for concurrent use.
type Server struct {
	hs     *httptest.Server
	o      Options
	bot    User
	closed chan struct{}
	client *http.Client // posts updates to the webhook

	mu      sync.Mutex
	changed chan struct{} // closed and replaced on every change
	calls   []Call

	faults     map[string][]APIError
	floodUntil map[int64]time.Time
	early      int
	blocked    map[int64]bool // users who blocked the bot
	kicked     map[int64]bool // groups the bot was removed from
	down       bool
	drop       chan struct{}            // closed to hang up on held getUpdates
	holds      map[string]chan struct{} // methods held, closed by Release
	held       map[string]int           // calls being held, by method

	chats    map[int64]*chat
	nextChat int64
	files    map[string]*File
	nextFile int
	queries  map[string]*query
	commands []Command

	updates    []queued // unconfirmed, in update_id order
	nextUpdate int64
	delivered  map[int64]int
	polling    bool
	pollDone   chan struct{}
	conflict   bool
	hook       *webhook
}

// User is a Telegram account.
type User struct {
	ID        int64
	FirstName string
	LastName  string
	Username  string // without the @
	IsBot     bool
}

// Chat is a private chat, a group or a forum.
type Chat struct {
	ID        int64
	Type      string // "private", "group", "supergroup"
	Title     string // groups
	Username  string // private chats: the user's
	FirstName string // private chats: the user's
	Forum     bool   // a supergroup with topics
}

// Message is a message as the people in its chat see it.
type Message struct {
	ID       int
	UpdateID int64 // the update that brought it to the bot; 0 for the bot's own
	Chat     Chat
	ThreadID int // the forum topic, 0 outside topics
	From     User
	// Text is what a reader sees: the text (a caption for a file) with
	// its markup applied, as it stands after the last edit.
	Text string
	// Source is the text as the bot sent it (HTML markup included) and
	// ParseMode the mode it was sent in; for people's messages Source is
	// Text.
	Source    string
	ParseMode string
	Entities  []Entity
	Buttons   [][]Button
	ReplyTo   int // the message it answers, 0 for none
	Edits     int // successful edits
	// History is Text as readers saw it after the send, then after
	// each edit, in order.
	History  []string
	Date     time.Time
	EditDate time.Time
	File     *File // a photo, voice note or document
}

// Button is an inline keyboard button.
type Button struct {
	Text string
	Data string // callback_data
	URL  string
}

// File is a file in the fake's storage: one a person sent or one the bot
// uploaded.
type File struct {
	ID       string
	UniqueID string
	Kind     string // "photo", "voice" or "document"
	Name     string
	MIME     string
	Data     []byte
	Path     string // getFile's file_path

	width, height int
	sizes         []*File // a photo's sizes, smallest first
}

// Command is an entry of the bot's command menu (setMyCommands).
type Command struct {
	Command     string
	Description string
}

// Call is one request the bot made.
type Call struct {
	Method string
	// Params are the request's parameters as strings; objects (reply
	// markup, reply parameters, commands) are their JSON.
	Params map[string]string
	// Files are the files uploaded with it, by field name.
	Files map[string]Upload
	Time  time.Time
	// Status is the HTTP status answered (0 while a long poll is held or
	// when the fake hung up), Description the error's description.
	Status      int
	Description string
}

// Upload is a file sent in a multipart request.
type Upload struct {
	Name string
	Data []byte
}

type chat struct {
	info   Chat
	msgs   []*Message
	nextID int
}

type query struct {
	from      User
	data      string
	answered  bool
	text      string
	showAlert bool
}

type queued struct {
	id   int64
	body json.RawMessage
}

// NewServer starts a fake Bot API on 127.0.0.1; it is closed when the
// test ends.
func NewServer(t testing.TB, o Options) *Server {
	s := newServer(o)
	t.Cleanup(s.Close)
	return s
}

func newServer(o Options) *Server {
	if o.Token == "" {
		o.Token = "4242424242:TEST-token"
	}
	if o.Username == "" {
		o.Username = "hermes_test_bot"
	}
	if o.Name == "" {
		o.Name = "Hermes"
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.WebhookRetry <= 0 {
		o.WebhookRetry = 50 * time.Millisecond
	}
	id, _ := strconv.ParseInt(strings.SplitN(o.Token, ":", 2)[0], 10, 64)
	s := &Server{
		o:          o,
		bot:        User{ID: id, FirstName: o.Name, Username: o.Username, IsBot: true},
		closed:     make(chan struct{}),
		client:     &http.Client{Timeout: 10 * time.Second},
		changed:    make(chan struct{}),
		faults:     map[string][]APIError{},
		floodUntil: map[int64]time.Time{},
		blocked:    map[int64]bool{},
		kicked:     map[int64]bool{},
		drop:       make(chan struct{}),
		holds:      map[string]chan struct{}{},
		held:       map[string]int{},
		chats:      map[int64]*chat{},
		files:      map[string]*File{},
		queries:    map[string]*query{},
		nextUpdate: 100000,
		delivered:  map[int64]int{},
	}
	s.hs = httptest.NewServer(http.HandlerFunc(s.serveHTTP))
	return s
}

// URL is the Bot API's base: requests go to URL/bot<token>/<method>.
func (s *Server) URL() string { return s.hs.URL }

// Token is the bot's token.
func (s *Server) Token() string { return s.o.Token }

// Bot is the bot's own account.
func (s *Server) Bot() User { return s.bot }

// Close stops the server, hanging up on held requests.
func (s *Server) Close() {
	s.mu.Lock()
	select {
	case <-s.closed:
		s.mu.Unlock()
		return
	default:
	}
	close(s.closed)
	s.stopWebhook()
	s.mu.Unlock()
	s.hs.CloseClientConnections()
	s.hs.Close()
}

// WaitFor blocks until cond holds, checking it after every change the
// fake sees (a request, an update, a message), or until timeout passes;
// it reports whether cond held. cond may call the Server's methods.
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

// Calls returns the requests made, in order; with methods, only those.
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

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// notify wakes everything waiting for a change; s.mu is held.
func (s *Server) notify() {
	close(s.changed)
	s.changed = make(chan struct{})
}

// request is one call of a method.
type request struct {
	method string
	params map[string]string
	files  map[string]Upload
	ctx    context.Context
	call   int // index in s.calls
}

func (q *request) int64(name string) int64 {
	n, _ := strconv.ParseInt(q.params[name], 10, 64)
	return n
}

func (q *request) int(name string) int { return int(q.int64(name)) }

// errHangUp makes serveHTTP close the connection without an answer.
var errHangUp = errors.New("hang up")

type method func(*request) (any, error)

func (s *Server) methods() map[string]method {
	return map[string]method{
		"getMe":               s.getMe,
		"getUpdates":          s.getUpdates,
		"setWebhook":          s.setWebhook,
		"deleteWebhook":       s.deleteWebhook,
		"getWebhookInfo":      s.getWebhookInfo,
		"sendMessage":         s.sendMessage,
		"editMessageText":     s.editMessageText,
		"sendPhoto":           s.sendPhoto,
		"sendDocument":        s.sendDocument,
		"sendChatAction":      s.sendChatAction,
		"answerCallbackQuery": s.answerCallbackQuery,
		"setMyCommands":       s.setMyCommands,
		"getMyCommands":       s.getMyCommands,
		"getFile":             s.getFile,
	}
}

func (s *Server) serveHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	down := s.down
	s.mu.Unlock()
	if down {
		hangUp(w)
		return
	}
	if rest, ok := strings.CutPrefix(r.URL.Path, "/file/bot"); ok {
		s.serveFile(w, r, rest)
		return
	}
	rest, ok := strings.CutPrefix(r.URL.Path, "/bot")
	token, name, _ := strings.Cut(rest, "/")
	if !ok || token != s.o.Token {
		writeError(w, &APIError{Code: 401, Description: "Unauthorized"})
		return
	}
	m, ok := s.methods()[name]
	if !ok {
		writeError(w, &APIError{Code: 404, Description: "Not Found: method not found"})
		return
	}
	q, err := readRequest(r)
	if err != nil {
		writeError(w, &APIError{Code: 400, Description: "Bad Request: " + err.Error()})
		return
	}
	q.method = name
	q.ctx = r.Context()

	s.mu.Lock()
	q.call = len(s.calls)
	s.calls = append(s.calls, Call{Method: name, Params: q.params, Files: q.files, Time: s.o.Now()})
	s.notify()
	s.mu.Unlock()

	result, err := s.answer(q, m)
	var apiErr *APIError
	switch {
	case errors.As(err, &apiErr):
		s.finish(q, apiErr.Code, apiErr.Description)
		writeError(w, apiErr)
	case err != nil:
		s.finish(q, 0, err.Error())
		hangUp(w)
	default:
		s.finish(q, http.StatusOK, "")
		writeJSON(w, http.StatusOK, map[string]any{"ok": true, "result": result})
	}
}

// answer runs a method unless a hold, a flood wait or a scripted
// failure answers first.
func (s *Server) answer(q *request, m method) (any, error) {
	if err := s.hold(q); err != nil {
		return nil, err
	}
	if err := s.flooded(q); err != nil {
		return nil, err
	}
	if err := s.scripted(q); err != nil {
		return nil, err
	}
	return m(q)
}

func (s *Server) finish(q *request, status int, description string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls[q.call].Status = status
	s.calls[q.call].Description = description
	s.notify()
}

// readRequest reads a method's parameters from the query string and a
// JSON, urlencoded or multipart body, as the Bot API accepts them.
func readRequest(r *http.Request) (*request, error) {
	q := &request{params: map[string]string{}, files: map[string]Upload{}}
	for k, v := range r.URL.Query() {
		q.params[k] = v[0]
	}
	body, err := io.ReadAll(r.Body)
	if err != nil {
		return nil, err
	}
	if len(body) == 0 {
		// A method without parameters may come as an empty multipart
		// body, without even the closing boundary.
		return q, nil
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	ct, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	switch ct {
	case "application/json":
		var body map[string]json.RawMessage
		if err := json.NewDecoder(r.Body).Decode(&body); err != nil && !errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("can't parse JSON body: %w", err)
		}
		for k, raw := range body {
			var str string
			if json.Unmarshal(raw, &str) == nil {
				q.params[k] = str
			} else {
				q.params[k] = string(raw)
			}
		}
	case "application/x-www-form-urlencoded":
		if err := r.ParseForm(); err != nil {
			return nil, err
		}
		for k, v := range r.PostForm {
			q.params[k] = v[0]
		}
	case "multipart/form-data":
		if err := r.ParseMultipartForm(64 << 20); err != nil {
			return nil, err
		}
		for k, v := range r.MultipartForm.Value {
			q.params[k] = v[0]
		}
		for k, fhs := range r.MultipartForm.File {
			f, err := fhs[0].Open()
			if err != nil {
				return nil, err
			}
			data, err := io.ReadAll(f)
			f.Close()
			if err != nil {
				return nil, err
			}
			q.files[k] = Upload{Name: fhs[0].Filename, Data: data}
		}
	}
	return q, nil
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

func writeError(w http.ResponseWriter, e *APIError) {
	body := map[string]any{"ok": false, "error_code": e.Code, "description": e.Description}
	if e.RetryAfter > 0 {
		body["parameters"] = map[string]any{"retry_after": e.RetryAfter}
	}
	writeJSON(w, e.Code, body)
}

// hangUp closes the connection without answering, as a dropped network
// or a restarting server does.
func hangUp(w http.ResponseWriter) {
	if hj, ok := w.(http.Hijacker); ok {
		if conn, _, err := hj.Hijack(); err == nil {
			conn.Close()
			return
		}
	}
	panic(http.ErrAbortHandler)
}
