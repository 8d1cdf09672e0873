package mattermosttest

import (
	"encoding/json"
	"net/http"
	"sync"
	"time"

	"github.com/gorilla/websocket"
)

// socket is one websocket connection.
type socket struct {
	conn   *websocket.Conn
	authed bool // guarded by Server.mu
	out    chan any
	done   chan struct{}
	once   sync.Once

	mu  sync.Mutex
	seq int64
}

var upgrader = websocket.Upgrader{CheckOrigin: func(*http.Request) bool { return true }}

// serveSocket upgrades, waits for the authentication_challenge with the
// bot's token, answers it, says hello, then carries posted events until
// it is dropped.
func (s *Server) serveSocket(w http.ResponseWriter, r *http.Request) {
	at := time.Now()
	if !s.hold(r, "websocket") {
		return
	}
	conn, err := upgrader.Upgrade(w, r, nil)
	s.mu.Lock()
	s.calls = append(s.calls, Call{Name: "websocket", Status: http.StatusSwitchingProtocols, Time: at})
	s.notifyLocked()
	s.mu.Unlock()
	if err != nil {
		return
	}
	k := &socket{conn: conn, out: make(chan any, 4096), done: make(chan struct{})}
	go k.writeLoop()
	s.mu.Lock()
	s.sockets = append(s.sockets, k)
	s.mu.Unlock()
	defer s.dropSocket(k)
	for {
		_, data, err := conn.ReadMessage()
		if err != nil {
			return
		}
		var req struct {
			Seq    int64           `json:"seq"`
			Action string          `json:"action"`
			Data   json.RawMessage `json:"data"`
		}
		if json.Unmarshal(data, &req) != nil {
			continue
		}
		if req.Action != "authentication_challenge" {
			k.write(map[string]any{"status": "FAIL", "seq_reply": req.Seq, "error": map[string]string{"id": "api.web_socket_router.not_authenticated.app_error"}})
			continue
		}
		var d struct {
			Token string `json:"token"`
		}
		_ = json.Unmarshal(req.Data, &d)
		if d.Token != Token {
			k.write(map[string]any{"status": "FAIL", "seq_reply": req.Seq, "error": map[string]string{"id": "api.web_socket_router.bad_token.app_error"}})
			continue
		}
		// Authenticated before the reply is queued: a post made once the
		// client read the reply reaches it.
		s.mu.Lock()
		k.authed = true
		k.write(map[string]any{"status": "OK", "seq_reply": req.Seq})
		k.event("hello", map[string]any{"server_version": "10.5.0.fake", "connection_id": "fake"}, "")
		s.notifyLocked()
		s.mu.Unlock()
	}
}

// writeLoop sends the queued frames in order.
func (k *socket) writeLoop() {
	for {
		select {
		case v := <-k.out:
			_ = k.conn.SetWriteDeadline(time.Now().Add(10 * time.Second))
			if k.conn.WriteJSON(v) != nil {
				return
			}
		case <-k.done:
			return
		}
	}
}

// write queues a frame; a socket too slow to take 4096 frames loses them.
func (k *socket) write(v any) {
	select {
	case k.out <- v:
	case <-k.done:
	default:
	}
}

func (k *socket) event(name string, data any, channel string) {
	k.mu.Lock()
	k.seq++
	seq := k.seq
	k.mu.Unlock()
	k.write(map[string]any{"event": name, "data": data, "broadcast": map[string]any{"channel_id": channel}, "seq": seq})
}

func (s *Server) dropSocket(k *socket) {
	s.mu.Lock()
	for i, o := range s.sockets {
		if o == k {
			s.sockets = append(s.sockets[:i], s.sockets[i+1:]...)
			break
		}
	}
	s.notifyLocked()
	s.mu.Unlock()
	k.once.Do(func() { close(k.done) })
	_ = k.conn.Close()
}

// Connected counts the authenticated sockets open now.
func (s *Server) Connected() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, k := range s.sockets {
		if k.authed {
			n++
		}
	}
	return n
}

// DropSockets closes every socket without a close frame; it reports
// whether one was open.
func (s *Server) DropSockets() bool {
	s.mu.Lock()
	socks := append([]*socket(nil), s.sockets...)
	s.mu.Unlock()
	for _, k := range socks {
		s.dropSocket(k)
	}
	return len(socks) > 0
}

// Disconnect drops the sockets and holds every new one until Reconnect:
// posts made meanwhile reach no socket.
func (s *Server) Disconnect() bool {
	s.Hold("websocket")
	return s.DropSockets()
}

// Reconnect lets sockets open again.
func (s *Server) Reconnect() { s.Release("websocket") }

// broadcastLocked sends a posted event for p to every authenticated
// socket.
func (s *Server) broadcastLocked(p *Post) {
	post, _ := json.Marshal(s.wirePostLocked(p))
	data := map[string]any{"channel_type": p.ChannelType, "post": string(post), "sender_name": "@" + s.users[p.UserID], "team_id": TeamID}
	if len(p.Mentions) > 0 {
		m, _ := json.Marshal(p.Mentions)
		data["mentions"] = string(m)
	}
	for _, k := range s.sockets {
		if k.authed {
			k.event("posted", data, p.ChannelID)
		}
	}
}
