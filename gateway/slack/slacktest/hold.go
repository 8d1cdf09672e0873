package slacktest

import (
	"context"
	"math"
	"strconv"
	"time"
)

// Hold makes every later call of method wait, unanswered, until Release:
// a test can then act while the bot's request is in flight (kill the bot
// between sending and hearing back). A held call whose client goes away
// changes nothing, as a request that never reached Slack; it is listed
// in Calls with the error "client went away".
func (s *Server) Hold(method string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.holds[method] == nil {
		s.holds[method] = make(chan struct{})
	}
}

// Release lets the held calls of method go on, and the later ones pass.
func (s *Server) Release(method string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if ch := s.holds[method]; ch != nil {
		close(ch)
		delete(s.holds, method)
	}
}

// Held counts the calls of method being held now.
func (s *Server) Held(method string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.held[method]
}

// hold waits while method is held; it reports false when the client gave
// up first.
func (s *Server) hold(ctx context.Context, method string) bool {
	s.mu.Lock()
	release := s.holds[method]
	if release == nil {
		s.mu.Unlock()
		return true
	}
	s.held[method]++
	s.notifyLocked()
	s.mu.Unlock()
	ok := true
	select {
	case <-release:
	case <-ctx.Done():
		ok = false
	}
	s.mu.Lock()
	s.held[method]--
	s.notifyLocked()
	s.mu.Unlock()
	return ok
}

// limited are the methods a channel's rate limit holds back: Slack
// limits posting to one channel (about one message a second).
var limited = map[string]bool{"chat.postMessage": true, "chat.update": true}

// EarlyRetries counts the calls for a channel made while an enforced
// rate limit (Failure.Enforce) lasted; each was answered 429 with the
// seconds left.
func (s *Server) EarlyRetries() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.early
}

// rateLimitedLocked answers a call for a channel whose rate limit has not
// passed; it reports the seconds left, 0 when the call may go on.
func (s *Server) rateLimitedLocked(c *Call) time.Duration {
	if !limited[c.Method] {
		return 0
	}
	left := time.Until(s.limitedUntil[c.Params.Get("channel")])
	if left <= 0 {
		return 0
	}
	s.early++
	return left
}

// startLimitLocked starts an enforced rate limit's wait for the call's
// channel.
func (s *Server) startLimitLocked(c *Call, d time.Duration) {
	if ch := c.Params.Get("channel"); limited[c.Method] && ch != "" {
		s.limitedUntil[ch] = time.Now().Add(d)
	}
}

func retryAfterHeader(d time.Duration) string {
	return strconv.Itoa(int(math.Ceil(d.Seconds())))
}
