package matrixtest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// serve routes the client-server API.
func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	var segs []string
	for _, p := range strings.Split(strings.Trim(r.URL.EscapedPath(), "/"), "/") {
		u, _ := url.PathUnescape(p)
		segs = append(segs, u)
	}
	s.mu.Lock()
	down := s.down
	s.mu.Unlock()
	if down {
		hangUp(w)
		return
	}
	if r.Header.Get("Authorization") != "Bearer "+s.token {
		s.record(r, "auth", "", "", http.StatusUnauthorized)
		writeError(w, http.StatusUnauthorized, "M_UNKNOWN_TOKEN", "unknown token", nil)
		return
	}
	// /_matrix/client/v3/..., /_matrix/client/v1/media/..., /_matrix/media/v3/...
	if len(segs) < 3 || segs[0] != "_matrix" {
		writeError(w, http.StatusNotFound, "M_UNRECOGNIZED", "unrecognized", nil)
		return
	}
	api, rest := segs[1], segs[3:]
	switch {
	case api == "media" && len(rest) == 1 && rest[0] == "upload" || api == "client" && len(rest) == 2 && rest[0] == "media" && rest[1] == "upload":
		s.upload(w, r)
	case api == "client" && len(rest) == 4 && rest[0] == "media" && rest[1] == "download",
		api == "media" && len(rest) == 3 && rest[0] == "download":
		s.download(w, r, rest[len(rest)-1])
	case api != "client":
		writeError(w, http.StatusNotFound, "M_UNRECOGNIZED", "unrecognized", nil)
	case len(rest) == 2 && rest[0] == "account" && rest[1] == "whoami":
		s.record(r, "whoami", "", "", http.StatusOK)
		writeJSON(w, map[string]any{"user_id": s.bot.ID, "device_id": "HERMES"})
	case len(rest) == 3 && rest[0] == "profile" && rest[2] == "displayname":
		s.displayName(w, r, rest[1])
	case len(rest) == 1 && rest[0] == "sync":
		s.sync(w, r)
	case len(rest) == 2 && rest[0] == "join":
		s.joinRoom(w, r, rest[1])
	case len(rest) >= 3 && rest[0] == "rooms":
		s.roomAPI(w, r, rest[1], rest[2:])
	default:
		writeError(w, http.StatusNotFound, "M_UNRECOGNIZED", "unrecognized", nil)
	}
}

func (s *Server) roomAPI(w http.ResponseWriter, r *http.Request, roomID string, rest []string) {
	s.mu.Lock()
	rm := s.rooms[roomID]
	_, member := rm.membersOf(s.bot.ID)
	s.mu.Unlock()
	switch {
	case rm == nil:
		s.record(r, rest[0], roomID, "", http.StatusNotFound)
		writeError(w, http.StatusNotFound, "M_NOT_FOUND", "no such room", nil)
	case rest[0] == "join":
		s.joinRoom(w, r, roomID)
	case !member:
		s.record(r, rest[0], roomID, "", http.StatusForbidden)
		writeError(w, http.StatusForbidden, "M_FORBIDDEN", "the bot is not in the room", nil)
	case rest[0] == "joined_members":
		s.record(r, "joined_members", roomID, "", http.StatusOK)
		joined := map[string]any{}
		s.mu.Lock()
		for id, u := range rm.members {
			joined[id] = map[string]any{"display_name": u.Name}
		}
		s.mu.Unlock()
		writeJSON(w, map[string]any{"joined": joined})
	case rest[0] == "state" && len(rest) >= 2:
		s.record(r, "state", roomID, "", http.StatusOK)
		s.mu.Lock()
		enc := rm.encrypted
		s.mu.Unlock()
		if rest[1] == "m.room.encryption" && enc {
			writeJSON(w, map[string]any{"algorithm": "m.megolm.v1.aes-sha2"})
			return
		}
		writeError(w, http.StatusNotFound, "M_NOT_FOUND", "no such state", nil)
	case rest[0] == "messages" && r.Method == http.MethodGet:
		s.messages(w, r, roomID)
	case rest[0] == "typing":
		s.record(r, "typing", roomID, "", http.StatusOK)
		writeJSON(w, map[string]any{})
	case rest[0] == "send" && len(rest) == 3 && r.Method == http.MethodPut:
		s.send(w, r, roomID, rest[1], rest[2])
	case rest[0] == "redact" && len(rest) == 3 && r.Method == http.MethodPut:
		s.redact(w, r, roomID, rest[1], rest[2])
	default:
		writeError(w, http.StatusNotFound, "M_UNRECOGNIZED", "unrecognized", nil)
	}
}

func (rm *room) membersOf(id string) (User, bool) {
	if rm == nil {
		return User{}, false
	}
	u, ok := rm.members[id]
	return u, ok
}

func (s *Server) displayName(w http.ResponseWriter, r *http.Request, user string) {
	s.record(r, "profile", "", "", http.StatusOK)
	if user == s.bot.ID {
		writeJSON(w, map[string]any{"displayname": s.bot.Name})
		return
	}
	writeError(w, http.StatusNotFound, "M_NOT_FOUND", "no profile", nil)
}

func (s *Server) joinRoom(w http.ResponseWriter, r *http.Request, roomID string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	rm := s.rooms[roomID]
	_, invited := rm.invitedOf(s.bot.ID)
	_, member := rm.membersOf(s.bot.ID)
	if rm == nil || !invited && !member {
		s.recordLocked(r, "join", roomID, "", http.StatusForbidden)
		writeError(w, http.StatusForbidden, "M_FORBIDDEN", "not invited", nil)
		return
	}
	if !member {
		s.join(rm, s.bot)
	}
	s.recordLocked(r, "join", roomID, "", http.StatusOK)
	writeJSON(w, map[string]any{"room_id": roomID})
}

func (rm *room) invitedOf(id string) (int, bool) {
	if rm == nil {
		return 0, false
	}
	p, ok := rm.invited[id]
	return p, ok
}

// sync serves the events after since in the rooms the bot is in, and
// its invites; without events it holds the request up to timeout.
func (s *Server) sync(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	since := 0
	if v := q.Get("since"); v != "" {
		n, err := strconv.Atoi(strings.TrimPrefix(v, "s"))
		if err != nil || !strings.HasPrefix(v, "s") {
			s.record(r, "sync", "", "", http.StatusBadRequest)
			writeError(w, http.StatusBadRequest, "M_INVALID_PARAM", "bad since token", nil)
			return
		}
		since = n
	}
	limit := defaultTimelineLimit
	var filter struct {
		Room struct {
			Timeline struct {
				Limit int `json:"limit"`
			} `json:"timeline"`
		} `json:"room"`
	}
	if f := q.Get("filter"); strings.HasPrefix(f, "{") && json.Unmarshal([]byte(f), &filter) == nil && filter.Room.Timeline.Limit > 0 {
		limit = filter.Room.Timeline.Limit
	}
	timeout, _ := strconv.Atoi(q.Get("timeout"))
	deadline := time.NewTimer(time.Duration(timeout) * time.Millisecond)
	defer deadline.Stop()
	s.mu.Lock()
	s.syncing++
	s.notify()
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		s.syncing--
		s.notify()
		s.mu.Unlock()
	}()
	for {
		s.mu.Lock()
		resp, n := s.syncResponse(since, q.Get("since") == "", limit)
		ch, drop := s.changed, s.drop
		s.mu.Unlock()
		if n > 0 {
			s.record(r, "sync", "", "", http.StatusOK)
			writeJSON(w, resp)
			return
		}
		select {
		case <-ch:
			continue
		case <-drop:
			hangUp(w)
			return
		case <-r.Context().Done():
			return
		case <-deadline.C:
			s.record(r, "sync", "", "", http.StatusOK)
			writeJSON(w, resp)
			return
		}
	}
}

// syncResponse is a sync's answer after position since, and how many
// events and invites it holds; s.mu is held. An initial sync holds every
// room's state and its whole timeline.
func (s *Server) syncResponse(since int, initial bool, limit int) (map[string]any, int) {
	join, invite := map[string]any{}, map[string]any{}
	n := 0
	timelines := map[string][]Event{}
	positions := map[string][]int{}
	states := map[string][]Event{}
	for i := since; i < len(s.stream); i++ {
		e := s.stream[i]
		rm := s.rooms[e.Room]
		if _, member := rm.membersOf(s.bot.ID); !member {
			continue
		}
		if initial && e.StateKey != nil {
			states[e.Room] = append(states[e.Room], e.clone())
			continue
		}
		timelines[e.Room] = append(timelines[e.Room], e.clone())
		positions[e.Room] = append(positions[e.Room], i)
		n++
	}
	for id, rm := range s.rooms {
		if _, member := rm.membersOf(s.bot.ID); member {
			if len(timelines[id]) > 0 || len(states[id]) > 0 {
				// More events than the limit: the last ones, limited, and
				// the token before them for /messages.
				tl := map[string]any{"limited": false}
				if events := timelines[id]; len(events) > limit {
					cut := len(events) - limit
					timelines[id] = events[cut:]
					tl["limited"], tl["prev_batch"] = true, fmt.Sprintf("s%d", positions[id][cut])
				}
				tl["events"] = orEmpty(timelines[id])
				join[id] = map[string]any{"state": map[string]any{"events": orEmpty(states[id])}, "timeline": tl}
			}
			continue
		}
		if p, ok := rm.invitedOf(s.bot.ID); ok && p > since {
			var state []Event
			for _, e := range s.stream {
				if e.Room == id && e.StateKey != nil {
					state = append(state, e.clone())
				}
			}
			invite[id] = map[string]any{"invite_state": map[string]any{"events": state}}
			n++
		}
	}
	return map[string]any{"next_batch": fmt.Sprintf("s%d", len(s.stream)),
		"rooms": map[string]any{"join": join, "invite": invite}}, n
}

func orEmpty(es []Event) []Event {
	if es == nil {
		return []Event{}
	}
	return es
}

// send posts one of the bot's events, once per transaction id.
func (s *Server) send(w http.ResponseWriter, r *http.Request, roomID, typ, txn string) {
	var content map[string]any
	if err := json.NewDecoder(r.Body).Decode(&content); err != nil {
		s.record(r, "send", roomID, txn, http.StatusBadRequest)
		writeError(w, http.StatusBadRequest, "M_NOT_JSON", err.Error(), nil)
		return
	}
	relType, _, _ := relation(content)
	kind := "send"
	switch {
	case typ == "m.reaction":
		kind = "react"
	case typ == "m.room.message" && relType == "m.replace":
		kind = "edit"
	case typ != "m.room.message":
		kind = "event"
	}
	if kind == "send" {
		s.mu.Lock()
		holding, release := s.holding, s.release
		if holding {
			s.held++
			s.notify()
		}
		s.mu.Unlock()
		if holding {
			select {
			case <-release:
			case <-r.Context().Done():
			}
			s.mu.Lock()
			s.held--
			s.notify()
			s.mu.Unlock()
			if r.Context().Err() != nil {
				return // the client hung up: the homeserver never took it
			}
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if kind == "send" || kind == "edit" {
		if until, ok := s.limitUntil[roomID]; ok && time.Now().Before(until) {
			s.early++
		}
	}
	if kind == "send" && s.limitNext > 0 {
		d := s.limitNext
		s.limitNext = 0
		s.limitUntil[roomID] = time.Now().Add(d)
		s.recordLocked(r, kind, roomID, txn, http.StatusTooManyRequests)
		writeError(w, http.StatusTooManyRequests, "M_LIMIT_EXCEEDED", "too many requests",
			map[string]any{"retry_after_ms": d.Milliseconds()})
		return
	}
	if id, ok := s.txns[txn]; ok {
		s.recordLocked(r, kind, roomID, txn, http.StatusOK)
		writeJSON(w, map[string]any{"event_id": id})
		return
	}
	e := s.append(Event{Room: roomID, Sender: s.bot.ID, Type: typ, Content: content})
	s.txns[txn] = e.ID
	if kind == "send" && s.lostNext {
		s.lostNext = false
		s.recordLocked(r, kind, roomID, txn, 0)
		hangUp(w)
		return
	}
	s.recordLocked(r, kind, roomID, txn, http.StatusOK)
	writeJSON(w, map[string]any{"event_id": e.ID})
}

// redact redacts one of the room's events.
func (s *Server) redact(w http.ResponseWriter, r *http.Request, roomID, eventID, txn string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if id, ok := s.txns[txn]; ok {
		s.recordLocked(r, "redact", roomID, txn, http.StatusOK)
		writeJSON(w, map[string]any{"event_id": id})
		return
	}
	e := s.append(Event{Room: roomID, Sender: s.bot.ID, Type: "m.room.redaction", Content: map[string]any{"redacts": eventID}})
	s.txns[txn] = e.ID
	s.recordLocked(r, "redact", roomID, txn, http.StatusOK)
	writeJSON(w, map[string]any{"event_id": e.ID})
}

func (s *Server) upload(w http.ResponseWriter, r *http.Request) {
	data, err := io.ReadAll(r.Body)
	if err != nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	id := fmt.Sprintf("media%d", len(s.media)+1)
	s.media[id] = data
	s.recordLocked(r, "upload", "", "", http.StatusOK)
	writeJSON(w, map[string]any{"content_uri": "mxc://test/" + id})
}

// AddMedia stores a file and returns its mxc:// URI, for a person's
// attachment.
func (s *Server) AddMedia(data []byte) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	id := fmt.Sprintf("media%d", len(s.media)+1)
	s.media[id] = data
	return "mxc://test/" + id
}

// Media is an uploaded file's content.
func (s *Server) Media(uri string) ([]byte, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	data, ok := s.media[strings.TrimPrefix(uri, "mxc://test/")]
	return data, ok
}

func (s *Server) download(w http.ResponseWriter, r *http.Request, id string) {
	s.mu.Lock()
	data, ok := s.media[id]
	s.mu.Unlock()
	if !ok {
		writeError(w, http.StatusNotFound, "M_NOT_FOUND", "no such media", nil)
		return
	}
	w.Header().Set("Content-Type", "application/octet-stream")
	w.Write(data)
}

func (s *Server) record(r *http.Request, kind, roomID, txn string, status int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.recordLocked(r, kind, roomID, txn, status)
}

func (s *Server) recordLocked(r *http.Request, kind, roomID, txn string, status int) {
	s.reqs = append(s.reqs, Request{At: time.Now(), Method: r.Method, Path: r.URL.Path, Room: roomID, Kind: kind, Txn: txn, Status: status})
	if len(s.reqs) > 10000 {
		s.reqs = s.reqs[len(s.reqs)-10000:]
	}
	s.notify()
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(v)
}

func writeError(w http.ResponseWriter, status int, code, msg string, extra map[string]any) {
	body := map[string]any{"errcode": code, "error": msg}
	for k, v := range extra {
		body[k] = v
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(body)
}

// hangUp closes the connection without an answer, as a network that went
// away.
func hangUp(w http.ResponseWriter) {
	if hj, ok := w.(http.Hijacker); ok {
		if conn, _, err := hj.Hijack(); err == nil {
			conn.Close()
			return
		}
	}
	panic(http.ErrAbortHandler)
}

// defaultTimelineLimit is how many events of a room a sync holds without
// a filter that says otherwise, as Synapse's default.
const defaultTimelineLimit = 10

// messages serves a room's events backwards from the token from to the
// token to (dir=b only), newest first, limit at a time.
func (s *Server) messages(w http.ResponseWriter, r *http.Request, roomID string) {
	q := r.URL.Query()
	pos := func(v string) (int, bool) {
		n, err := strconv.Atoi(strings.TrimPrefix(v, "s"))
		return n, err == nil && strings.HasPrefix(v, "s")
	}
	from, ok1 := pos(q.Get("from"))
	to, ok2 := pos(q.Get("to"))
	if q.Get("to") == "" {
		to, ok2 = 0, true
	}
	limit, _ := strconv.Atoi(q.Get("limit"))
	if !ok1 || !ok2 || q.Get("dir") != "b" || limit <= 0 {
		s.record(r, "messages", roomID, "", http.StatusBadRequest)
		writeError(w, http.StatusBadRequest, "M_INVALID_PARAM", "from, to (s<n>), dir=b and a limit are needed", nil)
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	chunk := []Event{}
	end := ""
	for i := min(from, len(s.stream)) - 1; i >= to; i-- {
		if s.stream[i].Room != roomID {
			continue
		}
		if len(chunk) == limit {
			end = fmt.Sprintf("s%d", i+1)
			break
		}
		chunk = append(chunk, s.stream[i].clone())
	}
	s.recordLocked(r, "messages", roomID, "", http.StatusOK)
	body := map[string]any{"start": q.Get("from"), "chunk": chunk}
	if end != "" {
		body["end"] = end
	}
	writeJSON(w, body)
}
