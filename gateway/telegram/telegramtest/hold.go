package telegramtest

// Hold makes every later call of method wait, recorded in Calls but not
// answered, until Release: a test can then act while the bot's request
// is in flight (kill the bot between sending and hearing back). A held
// call whose client goes away is hung up on and changes nothing, as a
// request that never reached Telegram.
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

// hold waits while method is held; it returns errHangUp when the client
// gives up first.
func (s *Server) hold(q *request) error {
	s.mu.Lock()
	release := s.holds[q.method]
	if release == nil {
		s.mu.Unlock()
		return nil
	}
	s.held[q.method]++
	s.notify()
	s.mu.Unlock()
	var err error
	select {
	case <-release:
	case <-q.ctx.Done():
		err = errHangUp
	case <-s.closed:
		err = errHangUp
	}
	s.mu.Lock()
	s.held[q.method]--
	s.notify()
	s.mu.Unlock()
	return err
}
