package telegramtest

import (
	"fmt"
	"math"
	"strconv"
	"time"
)

// APIError is an error answer of the Bot API.
type APIError struct {
	Code        int // the HTTP status and error_code
	Description string
	RetryAfter  int // seconds; parameters.retry_after of a 429
}

func (e *APIError) Error() string { return fmt.Sprintf("%d %s", e.Code, e.Description) }

// The Bot API's answers for the failures a bot meets, word for word.
var (
	Blocked       = APIError{Code: 403, Description: "Forbidden: bot was blocked by the user"}
	Kicked        = APIError{Code: 403, Description: "Forbidden: bot was kicked from the supergroup chat"}
	ChatNotFound  = APIError{Code: 400, Description: "Bad Request: chat not found"}
	ParseEntities = APIError{Code: 400, Description: "Bad Request: can't parse entities: Unsupported start tag \"foo\" at byte offset 0"}
	NotModified   = APIError{Code: 400, Description: "Bad Request: message is not modified: specified new message content and reply markup are exactly the same as a current content and reply markup of the message"}
	Conflict      = APIError{Code: 409, Description: "Conflict: terminated by other getUpdates request; make sure that only one bot instance is running"}
	WebhookActive = APIError{Code: 409, Description: "Conflict: can't use getUpdates method while webhook is active; use deleteWebhook to delete the webhook first"}
	Unauthorized  = APIError{Code: 401, Description: "Unauthorized"}
	BadGateway    = APIError{Code: 502, Description: "Bad Gateway"}
)

// RetryAfter is Telegram's flood control answer: 429, retry after n
// seconds.
func RetryAfter(n int) APIError {
	return APIError{Code: 429, Description: fmt.Sprintf("Too Many Requests: retry after %d", n), RetryAfter: n}
}

// Fail makes the next calls of method answer errs, one call each, in
// order, before the method runs. A 429 also starts a flood wait for the
// call's chat: until it passes, every message sent to or edited in that
// chat is answered 429 with the seconds left, and counted by
// EarlyRetries. (Chat actions and answers to presses are not held.)
func (s *Server) Fail(method string, errs ...APIError) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.faults[method] = append(s.faults[method], errs...)
}

// floodable are the methods a flood wait holds back.
var floodable = map[string]bool{"sendMessage": true, "editMessageText": true, "sendPhoto": true, "sendDocument": true}

// EarlyRetries counts calls made for a chat while its flood wait lasted.
func (s *Server) EarlyRetries() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.early
}

func (s *Server) scripted(q *request) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	list := s.faults[q.method]
	if len(list) == 0 {
		return nil
	}
	e := list[0]
	s.faults[q.method] = list[1:]
	if e.Code == 429 && floodable[q.method] && q.params["chat_id"] != "" {
		chat, _ := strconv.ParseInt(q.params["chat_id"], 10, 64)
		s.floodUntil[chat] = s.o.Now().Add(time.Duration(e.RetryAfter) * time.Second)
	}
	return &e
}

// flooded refuses a message for a chat whose flood wait has not passed.
func (s *Server) flooded(q *request) error {
	if !floodable[q.method] || q.params["chat_id"] == "" {
		return nil
	}
	chat, _ := strconv.ParseInt(q.params["chat_id"], 10, 64)
	s.mu.Lock()
	defer s.mu.Unlock()
	left := s.floodUntil[chat].Sub(s.o.Now())
	if left <= 0 {
		return nil
	}
	s.early++
	e := RetryAfter(int(math.Ceil(left.Seconds())))
	return &e
}

// Block makes user block the bot: sends to their private chat get 403.
func (s *Server) Block(user User) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.blocked[user.ID] = true
	s.notify()
}

// Unblock lets user hear from the bot again.
func (s *Server) Unblock(user User) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.blocked, user.ID)
	s.notify()
}

// Kick removes the bot from a group: sends to it get 403.
func (s *Server) Kick(c Chat) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.kicked[c.ID] = true
	s.notify()
}

// SetDown makes the server hang up on every request without an answer
// while down is true, as an unreachable API looks to a client.
func (s *Server) SetDown(down bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.down = down
	s.notify()
}

// DropPolls hangs up on the getUpdates requests being held, without an
// answer: the bot sees its connection drop.
func (s *Server) DropPolls() {
	s.mu.Lock()
	defer s.mu.Unlock()
	close(s.drop)
	s.drop = make(chan struct{})
}

// StartConflict plays another process polling with the same token: the
// held getUpdates and every later one get 409 Conflict until EndConflict.
func (s *Server) StartConflict() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.conflict = true
	s.notify()
}

// EndConflict stops the other poller.
func (s *Server) EndConflict() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.conflict = false
	s.notify()
}
