package matrixtest

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"testing"
	"time"
)

// Server is the fake homeserver. Its methods may be called from any
// goroutine.
type Server struct {
	srv   *httptest.Server
	token string
	bot   User

	mu      sync.Mutex
	changed chan struct{} // closed and replaced on every change
	seq     int
	stream  []Event // every event, in the order syncs serve them
	rooms   map[string]*room
	order   []string
	txns    map[string]string // transaction id -> event id
	reqs    []Request
	media   map[string][]byte

	down       bool
	drop       chan struct{} // closed to hang up on open long polls
	holding    bool
	held       int
	release    chan struct{}
	limitNext  time.Duration
	limitUntil map[string]time.Time // room -> end of its rate limit
	early      int
	syncing    int
	lostNext   bool
}

type room struct {
	id        string
	members   map[string]User // joined
	invited   map[string]int  // user -> stream position of the invite
	encrypted bool
}

// NewServer starts a fake homeserver, closed when t ends. Its bot is
// @hermes:test, display name Hermes.
func NewServer(t testing.TB) *Server {
	s := &Server{
		token: "syt_hermes_secret", bot: User{ID: "@hermes:test", Name: "Hermes"},
		changed: make(chan struct{}), rooms: map[string]*room{}, txns: map[string]string{},
		media: map[string][]byte{}, drop: make(chan struct{}), release: make(chan struct{}),
		limitUntil: map[string]time.Time{},
	}
	s.srv = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(func() {
		s.mu.Lock()
		s.down = true
		close(s.drop)
		s.drop = make(chan struct{})
		if s.holding {
			close(s.release)
			s.holding = false
		}
		s.mu.Unlock()
		s.srv.CloseClientConnections()
		s.srv.Close()
	})
	return s
}

// URL is the homeserver's base URL.
func (s *Server) URL() string { return s.srv.URL }

// Token is the bot's access token.
func (s *Server) Token() string { return s.token }

// Bot is the bot's account.
func (s *Server) Bot() User { return s.bot }

// notify wakes every waiter; s.mu is held.
func (s *Server) notify() {
	close(s.changed)
	s.changed = make(chan struct{})
}

// WaitFor waits until cond holds, checking it on every change; it
// reports whether it held before timeout.
func (s *Server) WaitFor(timeout time.Duration, cond func() bool) bool {
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	for {
		s.mu.Lock()
		ch := s.changed
		s.mu.Unlock()
		if cond() {
			return true
		}
		select {
		case <-ch:
		case <-deadline.C:
			return cond()
		}
	}
}

// append adds an event to its room's timeline and the stream; s.mu is
// held.
func (s *Server) append(e Event) Event {
	s.seq++
	if e.ID == "" {
		e.ID = fmt.Sprintf("$ev%d", s.seq)
	}
	e.TS = time.Now().UnixMilli()
	s.stream = append(s.stream, e)
	s.notify()
	return e
}

// AddRoom makes a room with the bot and members joined; it returns the
// room's id.
func (s *Server) AddRoom(members ...User) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.newRoom()
	for _, u := range append([]User{s.bot}, members...) {
		s.join(r, u)
	}
	return r.id
}

// DM is u's direct chat with the bot: a room of the two, made on the
// first call.
func (s *Server) DM(u User) string {
	s.mu.Lock()
	for _, id := range s.order {
		r := s.rooms[id]
		if _, ok := r.members[u.ID]; ok && len(r.members) == 2 {
			s.mu.Unlock()
			return id
		}
	}
	s.mu.Unlock()
	return s.AddRoom(u)
}

// Invite makes a room of inviter and invites the bot to it; the bot
// joins it by POST /join.
func (s *Server) Invite(inviter User) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.newRoom()
	s.join(r, inviter)
	r.invited[s.bot.ID] = len(s.stream) + 1
	key := s.bot.ID
	s.append(Event{Room: r.id, Sender: inviter.ID, Type: "m.room.member", StateKey: &key,
		Content: map[string]any{"membership": "invite"}})
	return r.id
}

func (s *Server) newRoom() *room {
	r := &room{id: fmt.Sprintf("!room%d:test", len(s.rooms)+1), members: map[string]User{}, invited: map[string]int{}}
	s.rooms[r.id] = r
	s.order = append(s.order, r.id)
	return r
}

func (s *Server) join(r *room, u User) {
	r.members[u.ID] = u
	delete(r.invited, u.ID)
	key := u.ID
	s.append(Event{Room: r.id, Sender: u.ID, Type: "m.room.member", StateKey: &key,
		Content: map[string]any{"membership": "join", "displayname": u.Name}})
}

// Joined says whether the bot is a member of the room.
func (s *Server) Joined(roomID string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.rooms[roomID]
	if r == nil {
		return false
	}
	_, ok := r.members[s.bot.ID]
	return ok
}

// Encrypt turns end-to-end encryption on in the room (an
// m.room.encryption state event sent by u).
func (s *Server) Encrypt(u User, roomID string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.rooms[roomID].encrypted = true
	key := ""
	s.append(Event{Room: roomID, Sender: u.ID, Type: "m.room.encryption", StateKey: &key,
		Content: map[string]any{"algorithm": "m.megolm.v1.aes-sha2"}})
}

// Say posts u's text message in the room.
func (s *Server) Say(u User, roomID, text string) Event {
	return s.Post(u, roomID, "m.room.message", map[string]any{"msgtype": "m.text", "body": text})
}

// Post posts an event of u's with any type and content.
func (s *Server) Post(u User, roomID, typ string, content map[string]any) Event {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.append(Event{Room: roomID, Sender: u.ID, Type: typ, Content: content})
}

// React reacts to an event as u, with key.
func (s *Server) React(u User, roomID, eventID, key string) Event {
	return s.Post(u, roomID, "m.reaction", map[string]any{
		"m.relates_to": map[string]any{"rel_type": "m.annotation", "event_id": eventID, "key": key}})
}

// Redeliver serves an event again in the next sync, with its id.
func (s *Server) Redeliver(e Event) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.stream = append(s.stream, e)
	s.notify()
}

// Messages are the room's m.room.message events (edits folded into the
// message they replace), in order.
func (s *Server) Messages(roomID string) []Message {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []Message
	index := map[string]int{}
	redacted := map[string]bool{}
	for _, e := range s.stream {
		if e.Type == "m.room.redaction" {
			redacted[str(e.Content, "redacts")] = true
		}
	}
	seen := map[string]bool{}
	for _, e := range s.stream {
		if e.Room != roomID || seen[e.ID] {
			continue
		}
		seen[e.ID] = true
		relType, target, key := relation(e.Content)
		switch {
		case e.Type == "m.room.message" && relType == "m.replace":
			if i, ok := index[target]; ok {
				nc, _ := e.Content["m.new_content"].(map[string]any)
				out[i].Body, out[i].FormattedBody, out[i].MsgType = str(nc, "body"), str(nc, "formatted_body"), str(nc, "msgtype")
				out[i].History = append(out[i].History, out[i].Body)
			}
		case e.Type == "m.room.message":
			index[e.ID] = len(out)
			body := str(e.Content, "body")
			out = append(out, Message{ID: e.ID, Sender: e.Sender, MsgType: str(e.Content, "msgtype"), Body: body,
				FormattedBody: str(e.Content, "formatted_body"), Content: e.Content, History: []string{body}, Redacted: redacted[e.ID]})
		case e.Type == "m.reaction" && relType == "m.annotation" && !redacted[e.ID]:
			if i, ok := index[target]; ok {
				out[i].Reactions = append(out[i].Reactions, Reaction{ID: e.ID, Sender: e.Sender, Key: key})
			}
		}
	}
	return out
}

// Requests are the bot's requests so far.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.reqs)
}

// Hold keeps the bot's new messages (m.room.message events that are not
// edits) in flight,
// unanswered, until Release; a held request whose client hangs up is
// dropped, never posted.
func (s *Server) Hold() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.holding {
		s.holding = true
		s.release = make(chan struct{})
	}
}

// Release lets held sends through.
func (s *Server) Release() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.holding {
		s.holding = false
		close(s.release)
	}
}

// Held counts the sends held now.
func (s *Server) Held() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.held
}

// RateLimitNextSend answers the bot's next new message with 429
// M_LIMIT_EXCEEDED, retry_after_ms d, and holds its room for d.
func (s *Server) RateLimitNextSend(d time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.limitNext = d
}

// EarlyRetries counts the bot's writes to a room before its rate limit
// passed.
func (s *Server) EarlyRetries() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.early
}

// SetDown hangs up on every request while down is true, long polls
// already open included.
func (s *Server) SetDown(down bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.down = down
	if down {
		close(s.drop)
		s.drop = make(chan struct{})
	}
	s.notify()
}

// Syncing says whether a long poll of the bot is open now.
func (s *Server) Syncing() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.syncing > 0
}

// LoseNextResponse takes the bot's next new message (posts it) and hangs
// up instead of answering, as a connection lost after the homeserver got
// the request: the bot cannot know whether it was posted.
func (s *Server) LoseNextResponse() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.lostNext = true
}

// Touch wakes WaitFor's waiters, for a test whose condition changed
// outside the fake.
func (s *Server) Touch() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.notify()
}
