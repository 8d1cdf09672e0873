package discordtest

import (
	"context"
	"net/http"
)

// hold keeps the REST calls it matches unanswered until released.
type hold struct {
	key     holdKey
	release chan struct{}
}

type holdKey struct{ method, path string }

// Hold makes every later REST call matching method and path (as in
// Fail: path without /api/v9, a path.Match pattern, "" any) wait,
// recorded in Requests but unanswered, until Release: a test can then
// act while the bot's request is in flight (kill the bot between
// sending and hearing back). A held call whose client goes away is
// served not at all, as a request that never reached Discord: it
// changes nothing and its Status stays 0.
func (s *Server) Hold(method, path string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	k := holdKey{method, path}
	for _, h := range s.holds {
		if h.key == k {
			return
		}
	}
	s.holds = append(s.holds, &hold{key: k, release: make(chan struct{})})
	s.notifyLocked()
}

// Release lets the calls Hold(method, path) keeps go on, and the later
// ones pass.
func (s *Server) Release(method, path string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	k := holdKey{method, path}
	for i, h := range s.holds {
		if h.key == k {
			close(h.release)
			s.holds = append(s.holds[:i], s.holds[i+1:]...)
			s.notifyLocked()
			return
		}
	}
}

// Held counts the calls Hold(method, path) keeps waiting now.
func (s *Server) Held(method, path string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.heldCalls[holdKey{method, path}]
}

// waitHeld waits while a hold matches the call; it reports false when
// the client went away (or the server closed) first.
func (s *Server) waitHeld(ctx context.Context, method, path string) bool {
	s.mu.Lock()
	var h *hold
	for _, x := range s.holds {
		if matches(x.key.method, x.key.path, method, path) {
			h = x
			break
		}
	}
	if h == nil {
		s.mu.Unlock()
		return true
	}
	s.heldCalls[h.key]++
	s.notifyLocked()
	s.mu.Unlock()
	ok := true
	select {
	case <-h.release:
	case <-ctx.Done():
		ok = false
	case <-s.quit:
		ok = false
	}
	s.mu.Lock()
	s.heldCalls[h.key]--
	s.notifyLocked()
	s.mu.Unlock()
	return ok
}

// HoldSockets keeps every new gateway websocket waiting before its
// upgrade, until ReleaseSockets: with Drop, a network that stays down
// for as long as a test needs.
func (s *Server) HoldSockets() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.socketHold == nil {
		s.socketHold = make(chan struct{})
	}
}

// ReleaseSockets lets the waiting sockets and the later ones open.
func (s *Server) ReleaseSockets() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.socketHold != nil {
		close(s.socketHold)
		s.socketHold = nil
		s.notifyLocked()
	}
}

// HeldSockets counts the sockets waiting to open now.
func (s *Server) HeldSockets() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.heldSockets
}

// waitSocket waits while sockets are held; it reports false when the
// client went away (or the server closed) first.
func (s *Server) waitSocket(r *http.Request) bool {
	s.mu.Lock()
	held := s.socketHold
	if held == nil {
		s.mu.Unlock()
		return true
	}
	s.heldSockets++
	s.notifyLocked()
	s.mu.Unlock()
	ok := false
	select {
	case <-held:
		ok = true
	case <-r.Context().Done():
	case <-s.quit:
	}
	s.mu.Lock()
	s.heldSockets--
	s.notifyLocked()
	s.mu.Unlock()
	return ok
}
