package signaltest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"
)

// maxEvents is how many events the daemon keeps for streams that
// reconnect (signal-cli keeps 1,000).
const maxEvents = 1000

type storedEvent struct {
	seq  int64
	data string
}

// stream is one open GET /api/v1/events.
type stream struct {
	out  chan storedEvent
	gone chan struct{}
	once sync.Once
}

func (st *stream) drop() { st.once.Do(func() { close(st.gone) }) }

func (s *Server) eventID(seq int64) string { return fmt.Sprintf("%d-%d", s.start, seq) }

// push keeps an event ({"envelope": env, "account": ...}) and sends it
// to the open streams.
func (s *Server) push(env map[string]any) {
	b, err := json.Marshal(map[string]any{"envelope": env, "account": s.account})
	if err != nil {
		s.t.Errorf("signaltest: %v", err)
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.seq++
	ev := storedEvent{seq: s.seq, data: string(b)}
	s.events = append(s.events, ev)
	if len(s.events) > maxEvents {
		s.events = s.events[1:]
	}
	for st := range s.streams {
		select {
		case st.out <- ev:
		default:
			st.drop() // a client too slow to read is hung up on, as a full socket
		}
	}
	s.notify()
}

// serveEvents streams events: first the kept ones after Last-Event-ID
// (all of them for an id of another run), then new ones.
func (s *Server) serveEvents(w http.ResponseWriter, r *http.Request) {
	if a := r.URL.Query().Get("account"); a != "" && a != s.account {
		http.Error(w, "unknown account", http.StatusBadRequest)
		return
	}
	s.mu.Lock()
	if s.down {
		s.mu.Unlock()
		http.Error(w, "service unavailable", http.StatusServiceUnavailable)
		return
	}
	st := &stream{out: make(chan storedEvent, 2*maxEvents), gone: make(chan struct{})}
	if last := r.Header.Get("Last-Event-ID"); last != "" {
		after := int64(0)
		if seq, ok := strings.CutPrefix(last, strconv.FormatInt(s.start, 10)+"-"); ok {
			after, _ = strconv.ParseInt(seq, 10, 64)
		}
		for _, ev := range s.events {
			if ev.seq > after {
				st.out <- ev
			}
		}
	}
	s.streams[st] = true
	s.notify()
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		delete(s.streams, st)
		s.notify()
		s.mu.Unlock()
	}()

	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	fl, _ := w.(http.Flusher)
	if fl != nil {
		fl.Flush()
	}
	for {
		select {
		case ev := <-st.out:
			if _, err := fmt.Fprintf(w, "id:%s\nevent:receive\ndata:%s\n\n", s.eventID(ev.seq), ev.data); err != nil {
				return
			}
			if fl != nil {
				fl.Flush()
			}
		case <-st.gone:
			// Hang up without ending the response cleanly, as a network
			// that went away.
			panic(http.ErrAbortHandler)
		case <-r.Context().Done():
			return
		}
	}
}

// Disconnect drops every open event stream and refuses new ones until
// Reconnect; events pushed meanwhile are kept for the next stream.
func (s *Server) Disconnect() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.down = true
	for st := range s.streams {
		st.drop()
	}
	s.notify()
}

// Reconnect lets event streams open again.
func (s *Server) Reconnect() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.down = false
	s.notify()
}
