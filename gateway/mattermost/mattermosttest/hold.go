package mattermosttest

import (
	"net/http"
	"time"
)

// Failure scripts the answer to one call of an endpoint.
type Failure struct {
	// RetryAfter, when set, answers 429 with Retry-After and
	// X-RateLimit-Reset of that many whole seconds.
	RetryAfter time.Duration
	// Enforce, with RetryAfter on posts.create or posts.patch, keeps the
	// call's channel rate limited until RetryAfter has passed: every
	// such call for it meanwhile is answered 429 too, and counted by
	// EarlyRetries.
	Enforce bool
	// Status, when set, answers that HTTP status with an error body (403
	// for a channel closed to the bot, 404, 500, 503).
	Status int
}

// limited are the endpoints a channel's rate limit holds back.
var limited = map[string]bool{"posts.create": true, "posts.patch": true}

// Fail scripts the answers to an endpoint's next calls ("posts.create",
// "posts.patch", ...), one Failure per call, in order.
func (s *Server) Fail(name string, f ...Failure) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.failures[name] = append(s.failures[name], f...)
}

// EarlyRetries counts the writes to a channel made while an enforced
// rate limit lasted.
func (s *Server) EarlyRetries() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.early
}

func (s *Server) limitedLocked(name, channel string) time.Duration {
	if !limited[name] || channel == "" {
		return 0
	}
	return time.Until(s.limitedUntil[channel])
}

// Hold makes every later call of an endpoint ("posts.create", or
// "websocket" for the websocket's handshake) wait, unanswered, until
// Release. A held call whose client goes away changes nothing, as a
// request that never reached the server.
func (s *Server) Hold(name string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.holds[name] == nil {
		s.holds[name] = make(chan struct{})
	}
}

// Release lets the held calls of an endpoint go on, and the later ones
// pass.
func (s *Server) Release(name string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if ch := s.holds[name]; ch != nil {
		close(ch)
		delete(s.holds, name)
	}
	s.notifyLocked()
}

// Held counts the calls of an endpoint being held now.
func (s *Server) Held(name string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.held[name]
}

// hold waits while name is held; false when the client gave up first.
func (s *Server) hold(r *http.Request, name string) bool {
	s.mu.Lock()
	release := s.holds[name]
	if release == nil {
		s.mu.Unlock()
		return true
	}
	s.held[name]++
	s.notifyLocked()
	s.mu.Unlock()
	ok := true
	select {
	case <-release:
	case <-r.Context().Done():
		ok = false
	}
	s.mu.Lock()
	s.held[name]--
	s.notifyLocked()
	s.mu.Unlock()
	return ok
}
