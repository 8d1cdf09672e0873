package discordtest

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gorilla/websocket"
)

// The intent bit Discord treats as privileged and the fake checks.
const messageContentIntent = 1 << 15

// session is a gateway session: its events in sequence, kept so that a
// RESUME gets every event after the sequence it names.
type session struct {
	id    string
	seq   int64
	log   []event
	conn  *conn // the socket the session runs on; nil while none does
	valid bool
}

type event struct {
	seq  int64
	typ  string
	data json.RawMessage
}

func (e event) frame() []byte {
	b, _ := json.Marshal(map[string]any{"op": 0, "s": e.seq, "t": e.typ, "d": e.data})
	return b
}

// conn is one websocket a client opened.
type conn struct {
	n        int
	ws       *websocket.Conn
	out      chan frame
	quit     chan struct{}
	quitOnce sync.Once
	noAcks   atomic.Bool
}

type frame struct {
	data      []byte
	closeCode int
	closeText string
}

// send queues a payload; a client that stops reading loses its socket.
func (c *conn) send(b []byte) {
	select {
	case c.out <- frame{data: b}:
	default:
		c.drop()
	}
}

// closeWith sends a close frame with a gateway close code.
func (c *conn) closeWith(code int, text string) {
	select {
	case c.out <- frame{closeCode: code, closeText: text}:
	default:
		c.drop()
	}
}

// drop cuts the TCP connection without a close frame, as a network
// failure would.
func (c *conn) drop() { _ = c.ws.NetConn().Close() }

func (c *conn) writeLoop() {
	for {
		select {
		case <-c.quit:
			return
		case f := <-c.out:
			if f.closeCode != 0 {
				msg := websocket.FormatCloseMessage(f.closeCode, f.closeText)
				_ = c.ws.WriteControl(websocket.CloseMessage, msg, time.Now().Add(time.Second))
				// The client answers or goes away; either ends the read loop.
				_ = c.ws.SetReadDeadline(time.Now().Add(2 * time.Second))
				return
			}
			if err := c.ws.WriteMessage(websocket.TextMessage, f.data); err != nil {
				c.drop()
				return
			}
		}
	}
}

var upgrader = websocket.Upgrader{CheckOrigin: func(*http.Request) bool { return true }}

// serveGateway runs one gateway websocket: HELLO, then IDENTIFY or
// RESUME, heartbeats, and the session's events.
func (s *Server) serveGateway(w http.ResponseWriter, r *http.Request) {
	if !s.waitSocket(r) {
		return
	}
	ws, err := upgrader.Upgrade(w, r, nil)
	if err != nil {
		return
	}
	s.mu.Lock()
	c := &conn{n: len(s.conns) + 1, ws: ws, out: make(chan frame, 4096), quit: make(chan struct{})}
	s.conns = append(s.conns, c)
	s.notifyLocked()
	interval := s.interval
	closed := s.closed
	s.mu.Unlock()
	if closed {
		c.drop()
		return
	}
	go c.writeLoop()
	hello, _ := json.Marshal(map[string]any{"op": 10, "s": nil, "t": nil, "d": map[string]any{"heartbeat_interval": interval.Milliseconds()}})
	c.send(hello)
	for {
		_, data, err := ws.ReadMessage()
		if err != nil {
			s.connEnded(c, err)
			return
		}
		var p struct {
			Op int             `json:"op"`
			D  json.RawMessage `json:"d"`
		}
		if json.Unmarshal(data, &p) != nil {
			c.closeWith(4002, "Error while decoding payload.")
			continue
		}
		s.onOp(c, p.Op, p.D)
	}
}

// connEnded detaches a closed socket from its session. A client that
// closes with 1000 or 1001 ends its session, as on Discord.
func (s *Server) connEnded(c *conn, err error) {
	c.quitOnce.Do(func() { close(c.quit) })
	_ = c.ws.Close()
	s.mu.Lock()
	defer s.mu.Unlock()
	s.notifyLocked()
	if s.session == nil || s.session.conn != c {
		return
	}
	s.session.conn = nil
	var ce *websocket.CloseError
	if errors.As(err, &ce) && (ce.Code == websocket.CloseNormalClosure || ce.Code == websocket.CloseGoingAway) {
		s.session.valid = false
	}
}

func (s *Server) onOp(c *conn, op int, d json.RawMessage) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.ops = append(s.ops, Op{Conn: c.n, Op: op, Data: d})
	s.notifyLocked()
	switch op {
	case 1:
		if !c.noAcks.Load() {
			c.send([]byte(`{"op":11,"s":null,"t":null,"d":null}`))
		}
	case 2:
		s.identifyLocked(c, d)
	case 6:
		s.resumeLocked(c, d)
	}
}

func tokenMatches(got, want string) bool {
	return strings.TrimPrefix(got, "Bot ") == want && want != ""
}

func (s *Server) identifyLocked(c *conn, d json.RawMessage) {
	var id struct {
		Token   string `json:"token"`
		Intents int    `json:"intents"`
	}
	_ = json.Unmarshal(d, &id)
	if !tokenMatches(id.Token, s.token) {
		c.closeWith(4004, "Authentication failed.")
		return
	}
	if id.Intents&messageContentIntent != 0 && !s.contentIntent {
		c.closeWith(4014, "Disallowed intent(s).")
		return
	}
	s.identifies++
	sess := &session{id: randomHex(16), conn: c, valid: true}
	s.session = sess
	s.sendLocked(sess, "READY", map[string]any{
		"v": 9, "user": s.bot.wire(), "session_id": sess.id, "resume_gateway_url": s.GatewayURL(),
		"guilds": s.unavailableGuildsLocked(), "private_channels": []any{},
		"application": map[string]any{"id": s.appID, "flags": 0},
	})
	for _, g := range s.guildsLocked() {
		s.sendLocked(sess, "GUILD_CREATE", g)
	}
	backlog := s.backlog
	s.backlog = nil
	for _, ev := range backlog {
		s.dispatchRawLocked(ev.typ, ev.data)
	}
}

func (s *Server) resumeLocked(c *conn, d json.RawMessage) {
	var rs struct {
		Token     string `json:"token"`
		SessionID string `json:"session_id"`
		Seq       int64  `json:"seq"`
	}
	_ = json.Unmarshal(d, &rs)
	if !tokenMatches(rs.Token, s.token) {
		c.closeWith(4004, "Authentication failed.")
		return
	}
	sess := s.session
	if sess == nil || !sess.valid || sess.id != rs.SessionID {
		c.send([]byte(`{"op":9,"s":null,"t":null,"d":false}`))
		return
	}
	if sess.conn != nil && sess.conn != c {
		sess.conn.drop()
	}
	sess.conn = c
	s.resumes++
	for _, ev := range sess.log {
		if ev.seq > rs.Seq {
			c.send(ev.frame())
		}
	}
	resumed, _ := json.Marshal(map[string]any{"op": 0, "s": sess.seq, "t": "RESUMED", "d": map[string]any{}})
	c.send(resumed)
}

// sendLocked sends an event of the session's handshake: numbered, but
// not replayed on RESUME.
func (s *Server) sendLocked(sess *session, typ string, data any) {
	raw, _ := json.Marshal(data)
	sess.seq++
	sess.conn.send(event{seq: sess.seq, typ: typ, data: raw}.frame())
}

// Dispatch sends an event (op 0) of any type with data as its "d". The
// session keeps it, so a client that resumes after missing it gets it.
// Events dispatched before the first IDENTIFY wait for it; events
// dispatched while the session is invalid are lost, as on Discord.
func (s *Server) Dispatch(eventType string, data any) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.dispatchLocked(eventType, data)
}

func (s *Server) dispatchRawLocked(typ string, raw json.RawMessage) {
	s.notifyLocked()
	sess := s.session
	if sess == nil {
		s.backlog = append(s.backlog, event{typ: typ, data: raw})
		return
	}
	if !sess.valid {
		return
	}
	sess.seq++
	ev := event{seq: sess.seq, typ: typ, data: raw}
	sess.log = append(sess.log, ev)
	if sess.conn != nil {
		sess.conn.send(ev.frame())
	}
}

// current returns the socket the session runs on.
func (s *Server) currentLocked() *conn {
	if s.session == nil {
		return nil
	}
	return s.session.conn
}

// Connected says whether a session runs on an open socket.
func (s *Server) Connected() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.currentLocked() != nil
}

// Drop cuts the session's socket without a close frame, as a network
// failure would. The session stays resumable: events dispatched from now
// on wait for the RESUME.
func (s *Server) Drop() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if c := s.currentLocked(); c != nil {
		s.session.conn = nil
		c.drop()
		s.notifyLocked()
	}
}

// Reconnect sends op 7 RECONNECT on the session's socket: the client
// must reconnect and resume.
func (s *Server) Reconnect() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if c := s.currentLocked(); c != nil {
		c.send([]byte(`{"op":7,"s":null,"t":null,"d":null}`))
	}
}

// InvalidateSession sends op 9 INVALID SESSION on the session's socket.
// Unless resumable, the session ends and the client must identify again.
func (s *Server) InvalidateSession(resumable bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c := s.currentLocked()
	if c == nil {
		return
	}
	if !resumable {
		s.session.valid = false
	}
	b, _ := json.Marshal(map[string]any{"op": 9, "s": nil, "t": nil, "d": resumable})
	c.send(b)
}

// WithholdAcks makes the session's current socket a zombie: it still
// delivers events but never answers a heartbeat (op 1) with op 11.
// Sockets opened later answer again.
func (s *Server) WithholdAcks() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if c := s.currentLocked(); c != nil {
		c.noAcks.Store(true)
	}
}

// AllowMessageContent sets whether the bot may ask for the privileged
// message content intent (it may by default); when it may not, an
// IDENTIFY asking for it is closed with 4014, as on Discord.
func (s *Server) AllowMessageContent(allowed bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.contentIntent = allowed
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
