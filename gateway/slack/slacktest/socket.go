package slacktest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/gorilla/websocket"
)

// socket is one Socket Mode connection.
type socket struct {
	n    int // 1 for the first socket opened, 2 for the next, ...
	conn *websocket.Conn

	// Guarded by Server.mu.
	out      [][]byte
	draining bool // sent a disconnect: nothing more goes to it
	closed   bool

	wake chan struct{} // a frame was queued
	done chan struct{} // closed when the socket is closed
	once sync.Once
}

type envelope struct {
	id, kind   string
	payload    json.RawMessage
	deliveries []Delivery
	acked      bool
	redelivery bool // a Redeliver copy: its first sending is a retry
}

// Delivery is one sending of an envelope on a socket.
type Delivery struct {
	Socket       int // which socket, 1 for the first opened
	RetryAttempt int
}

var upgrader = websocket.Upgrader{CheckOrigin: func(*http.Request) bool { return true }}

func (s *Server) serveSocket(w http.ResponseWriter, r *http.Request) {
	ticket := r.URL.Query().Get("ticket")
	s.mu.Lock()
	valid := s.tickets[ticket]
	delete(s.tickets, ticket)
	s.mu.Unlock()
	if !valid {
		s.unexpectedf("socket with an unknown or used ticket %q", ticket)
		http.Error(w, "invalid ticket", http.StatusUnauthorized)
		return
	}
	conn, err := upgrader.Upgrade(w, r, nil)
	if err != nil {
		return
	}
	k := &socket{conn: conn, wake: make(chan struct{}, 1), done: make(chan struct{})}

	s.mu.Lock()
	k.n = len(s.sockets) + 1
	// A new socket replaces the ones Slack asked to go away.
	var replaced []*socket
	for _, old := range s.sockets {
		if old.draining && !old.closed {
			old.closed = true
			replaced = append(replaced, old)
		}
	}
	s.sockets = append(s.sockets, k)
	hello, _ := json.Marshal(map[string]any{
		"type": "hello", "num_connections": 1,
		"debug_info":      map[string]any{"host": "applink-fake", "build_number": 1, "approximate_connection_time": 18060},
		"connection_info": map[string]any{"app_id": AppID},
	})
	k.out = append(k.out, hello)
	for _, e := range s.envelopes {
		if !e.acked {
			s.sendLocked(k, e)
		}
	}
	k.poke()
	s.notifyLocked()
	s.mu.Unlock()

	for _, old := range replaced {
		old.close()
	}
	go s.writeLoop(k)
	s.readLoop(k)
}

// sendLocked queues an envelope on a socket: a first delivery, or again
// with retry_attempt increased.
func (s *Server) sendLocked(k *socket, e *envelope) {
	attempt := len(e.deliveries)
	if e.redelivery {
		attempt++
	}
	reason := ""
	if attempt > 0 {
		reason = "timeout"
	}
	frame, _ := json.Marshal(map[string]any{
		"envelope_id": e.id, "type": e.kind, "payload": e.payload,
		"accepts_response_payload": false, "retry_attempt": attempt, "retry_reason": reason,
	})
	e.deliveries = append(e.deliveries, Delivery{Socket: k.n, RetryAttempt: attempt})
	k.out = append(k.out, frame)
	k.poke()
}

// poke wakes the socket's writer.
func (k *socket) poke() {
	select {
	case k.wake <- struct{}{}:
	default:
	}
}

// currentLocked is the socket new envelopes go to: the newest one open
// and not asked to go away.
func (s *Server) currentLocked() *socket {
	for i := len(s.sockets) - 1; i >= 0; i-- {
		if k := s.sockets[i]; !k.closed && !k.draining {
			return k
		}
	}
	return nil
}

func (s *Server) writeLoop(k *socket) {
	var ping <-chan time.Time
	if s.o.PingInterval > 0 {
		t := time.NewTicker(s.o.PingInterval)
		defer t.Stop()
		ping = t.C
	}
	for {
		select {
		case <-k.done:
			return
		case <-ping:
			if k.conn.WriteControl(websocket.PingMessage, nil, time.Now().Add(5*time.Second)) != nil {
				s.closeSocket(k)
				return
			}
		case <-k.wake:
		}
		s.mu.Lock()
		frames := k.out
		k.out = nil
		s.mu.Unlock()
		for _, f := range frames {
			_ = k.conn.SetWriteDeadline(time.Now().Add(5 * time.Second))
			if k.conn.WriteMessage(websocket.TextMessage, f) != nil {
				s.closeSocket(k)
				return
			}
		}
	}
}

// readLoop takes the client's acks until the socket closes.
func (s *Server) readLoop(k *socket) {
	defer s.closeSocket(k)
	for {
		_, data, err := k.conn.ReadMessage()
		if err != nil {
			return
		}
		var ack struct {
			EnvelopeID string `json:"envelope_id"`
		}
		if json.Unmarshal(data, &ack) != nil || ack.EnvelopeID == "" {
			s.unexpectedf("socket frame that is not an ack: %s", data)
			continue
		}
		s.mu.Lock()
		found := false
		for _, e := range s.envelopes {
			if e.id == ack.EnvelopeID {
				e.acked, found = true, true
			}
		}
		if !found {
			s.unexpected = append(s.unexpected, "ack of an unknown envelope "+ack.EnvelopeID)
		}
		s.notifyLocked()
		s.mu.Unlock()
	}
}

func (s *Server) closeSocket(k *socket) {
	s.mu.Lock()
	k.closed = true
	s.notifyLocked()
	s.mu.Unlock()
	k.close()
}

func (k *socket) close() {
	k.once.Do(func() {
		close(k.done)
		_ = k.conn.Close()
	})
}

// DropSocket closes the newest open socket without a close frame, as a
// network failure would; its unacknowledged envelopes are delivered again
// on the next socket. It reports whether a socket was open.
func (s *Server) DropSocket() bool {
	s.mu.Lock()
	var k *socket
	for i := len(s.sockets) - 1; i >= 0 && k == nil; i-- {
		if !s.sockets[i].closed {
			k = s.sockets[i]
		}
	}
	if k != nil {
		k.closed = true
		s.notifyLocked()
	}
	s.mu.Unlock()
	if k == nil {
		return false
	}
	_ = k.conn.NetConn().Close()
	k.close()
	return true
}

// Disconnect sends a disconnect envelope with reason ("refresh_requested",
// "warning", "link_disabled") on the current socket, which gets nothing
// more; it reports whether there was one.
func (s *Server) Disconnect(reason string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	k := s.currentLocked()
	if k == nil {
		return false
	}
	frame, _ := json.Marshal(map[string]any{
		"type": "disconnect", "reason": reason,
		"debug_info": map[string]any{"host": "applink-fake"},
	})
	k.out = append(k.out, frame)
	k.draining = true
	k.poke()
	s.notifyLocked()
	return true
}

// pushLocked records an envelope and sends it on the current socket, if
// there is one; otherwise the next socket gets it.
func (s *Server) pushLocked(kind string, payload json.RawMessage) string {
	e := &envelope{id: fmt.Sprintf("env-%06d", s.nextLocked()), kind: kind, payload: payload}
	s.envelopes = append(s.envelopes, e)
	if k := s.currentLocked(); k != nil {
		s.sendLocked(k, e)
	}
	s.notifyLocked()
	return e.id
}

// Sockets counts the sockets opened so far.
func (s *Server) Sockets() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.sockets)
}

// OpenSockets counts the sockets open now.
func (s *Server) OpenSockets() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, k := range s.sockets {
		if !k.closed {
			n++
		}
	}
	return n
}

// Acked reports whether the client acknowledged an envelope.
func (s *Server) Acked(envelopeID string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, e := range s.envelopes {
		if e.id == envelopeID {
			return e.acked
		}
	}
	return false
}

// Pending lists the envelopes not acknowledged yet, in the order pushed.
func (s *Server) Pending() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []string
	for _, e := range s.envelopes {
		if !e.acked {
			out = append(out, e.id)
		}
	}
	return out
}

// Deliveries lists the times an envelope was sent.
func (s *Server) Deliveries(envelopeID string) []Delivery {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, e := range s.envelopes {
		if e.id == envelopeID {
			return append([]Delivery(nil), e.deliveries...)
		}
	}
	return nil
}

// Redeliver sends an envelope's payload again in a new envelope with
// retry_attempt 1 and retry_reason "timeout", as Slack does when it
// believes a delivery was lost; it returns the new envelope's id. The
// client must take it as the same event.
func (s *Server) Redeliver(envelopeID string) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var orig *envelope
	for _, e := range s.envelopes {
		if e.id == envelopeID {
			orig = e
		}
	}
	if orig == nil {
		return "", fmt.Errorf("slacktest: no envelope %s", envelopeID)
	}
	e := &envelope{id: fmt.Sprintf("env-%06d", s.nextLocked()), kind: orig.kind, payload: orig.payload, redelivery: true}
	s.envelopes = append(s.envelopes, e)
	if k := s.currentLocked(); k != nil {
		s.sendLocked(k, e)
	}
	s.notifyLocked()
	return e.id, nil
}
