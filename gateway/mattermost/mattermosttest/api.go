package mattermosttest

import (
	"bytes"
	"encoding/json"
	"io"
	"math"
	"mime/multipart"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"
)

// api wraps an endpoint: the token is checked, the call recorded, held
// (Hold), failed (Fail) or rate limited as scripted.
func (s *Server) api(name string, fn func(w http.ResponseWriter, r *http.Request, body []byte)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		at := time.Now()
		body, _ := io.ReadAll(io.LimitReader(r.Body, 64<<20))
		c := Call{Name: name, ChannelID: s.channelOf(name, r, body), Time: at}
		rec := &recorder{ResponseWriter: w, status: http.StatusOK}
		defer func() {
			c.Status = rec.status
			s.mu.Lock()
			s.calls = append(s.calls, c)
			s.notifyLocked()
			s.mu.Unlock()
		}()
		if r.Header.Get("Authorization") != "Bearer "+Token {
			apiErr(rec, http.StatusUnauthorized, "api.context.session_expired.app_error", "Invalid or expired session, please login again.")
			return
		}
		if !s.hold(r, name) {
			rec.status = 0 // the client went away: the server never took it
			return
		}
		s.mu.Lock()
		if left := s.limitedLocked(name, c.ChannelID); left > 0 {
			s.early++
			s.mu.Unlock()
			tooMany(rec, left)
			return
		}
		var f Failure
		if fs := s.failures[name]; len(fs) > 0 {
			f, s.failures[name] = fs[0], fs[1:]
		}
		if f.RetryAfter > 0 && f.Enforce && limited[name] && c.ChannelID != "" {
			s.limitedUntil[c.ChannelID] = at.Add(f.RetryAfter)
		}
		s.mu.Unlock()
		switch {
		case f.RetryAfter > 0:
			tooMany(rec, f.RetryAfter)
			return
		case f.Status != 0:
			apiErr(rec, f.Status, "fake.failure", http.StatusText(f.Status))
			return
		}
		fn(rec, r, body)
	}
}

// channelOf is the channel a call writes to or reads.
func (s *Server) channelOf(name string, r *http.Request, body []byte) string {
	var b struct {
		ChannelID string `json:"channel_id"`
		Post      struct {
			ChannelID string `json:"channel_id"`
		} `json:"post"`
	}
	switch name {
	case "posts.create", "typing":
		_ = json.Unmarshal(body, &b)
		return b.ChannelID
	case "posts.ephemeral":
		_ = json.Unmarshal(body, &b)
		return b.Post.ChannelID
	case "posts.patch":
		s.mu.Lock()
		defer s.mu.Unlock()
		if p := s.posts[r.PathValue("id")]; p != nil {
			return p.ChannelID
		}
	case "channel.posts":
		return r.PathValue("id")
	}
	return ""
}

type recorder struct {
	http.ResponseWriter
	status int
}

func (r *recorder) WriteHeader(code int) {
	r.status = code
	r.ResponseWriter.WriteHeader(code)
}

func tooMany(w http.ResponseWriter, d time.Duration) {
	secs := strconv.Itoa(int(math.Ceil(d.Seconds())))
	w.Header().Set("Retry-After", secs)
	w.Header().Set("X-RateLimit-Reset", secs)
	w.Header().Set("X-RateLimit-Remaining", "0")
	apiErr(w, http.StatusTooManyRequests, "api.context.rate_limited", "too many requests")
}

func (s *Server) usersMe(w http.ResponseWriter, _ *http.Request, _ []byte) {
	writeJSON(w, http.StatusOK, map[string]any{"id": BotID, "username": BotUsername, "is_bot": true})
}

func (s *Server) usersGet(w http.ResponseWriter, r *http.Request, _ []byte) {
	s.mu.Lock()
	name, ok := s.users[r.PathValue("id")]
	s.mu.Unlock()
	if !ok {
		apiErr(w, http.StatusNotFound, "app.user.missing_account.const", "We couldn't find the existing account.")
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"id": r.PathValue("id"), "username": name})
}

func (s *Server) usersChannels(w http.ResponseWriter, _ *http.Request, _ []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := []map[string]any{}
	for _, c := range s.channels {
		last := int64(0)
		if n := len(c.posts); n > 0 {
			last = c.posts[n-1].CreateAt
		}
		out = append(out, map[string]any{"id": c.id, "type": c.typ, "team_id": TeamID, "last_post_at": last})
	}
	writeJSON(w, http.StatusOK, out)
}

func (s *Server) typing(w http.ResponseWriter, _ *http.Request, _ []byte) {
	writeJSON(w, http.StatusOK, map[string]string{"status": "OK"})
}

// inPost is the body of POST /posts and the post of /posts/ephemeral.
type inPost struct {
	ChannelID string   `json:"channel_id"`
	RootID    string   `json:"root_id"`
	Message   string   `json:"message"`
	FileIDs   []string `json:"file_ids"`
	Props     struct {
		Attachments []struct {
			Actions []struct {
				ID          string `json:"id"`
				Name        string `json:"name"`
				Type        string `json:"type"`
				Integration struct {
					URL     string          `json:"url"`
					Context json.RawMessage `json:"context"`
				} `json:"integration"`
			} `json:"actions"`
		} `json:"attachments"`
	} `json:"props"`
}

// maxPost is the server's default MaxPostSize, in characters.
const maxPost = 16383

func (p inPost) buttons() [][]Button {
	var out [][]Button
	for _, a := range p.Props.Attachments {
		var row []Button
		for _, act := range a.Actions {
			row = append(row, Button{ID: act.ID, Label: act.Name, URL: act.Integration.URL, Context: act.Integration.Context})
		}
		if len(row) > 0 {
			out = append(out, row)
		}
	}
	return out
}

func (s *Server) postsCreate(w http.ResponseWriter, _ *http.Request, body []byte) {
	var in inPost
	if err := json.Unmarshal(body, &in); err != nil {
		apiErr(w, http.StatusBadRequest, "api.context.invalid_body_param.app_error", "Invalid or missing post in request body.")
		return
	}
	if len([]rune(in.Message)) > maxPost {
		apiErr(w, http.StatusBadRequest, "model.post.is_valid.msg.app_error", "Invalid message.")
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	c := s.channels[in.ChannelID]
	if c == nil {
		apiErr(w, http.StatusForbidden, "api.context.permissions.app_error", "You do not have the appropriate permissions.")
		return
	}
	if in.RootID != "" && s.posts[in.RootID] == nil {
		apiErr(w, http.StatusBadRequest, "api.post.create_post.root_id.app_error", "Invalid RootId parameter.")
		return
	}
	p := &Post{ID: s.newIDLocked(), ChannelID: c.id, RootID: in.RootID, UserID: BotID, Message: in.Message,
		FileIDs: in.FileIDs, Buttons: in.buttons(), History: []string{Render(in.Message)}, ChannelType: c.typ}
	p.CreateAt = s.nowLocked()
	p.UpdateAt = p.CreateAt
	s.posts[p.ID] = p
	c.posts = append(c.posts, p)
	s.broadcastLocked(p) // the bot's own posts come back on its socket too
	s.notifyLocked()
	writeJSON(w, http.StatusCreated, s.wirePostLocked(p))
}

func (s *Server) postsGet(w http.ResponseWriter, r *http.Request, _ []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	p := s.posts[r.PathValue("id")]
	if p == nil {
		apiErr(w, http.StatusNotFound, "app.post.get.app_error", "Unable to get the post.")
		return
	}
	writeJSON(w, http.StatusOK, s.wirePostLocked(p))
}

func (s *Server) postsPatch(w http.ResponseWriter, r *http.Request, body []byte) {
	var in struct {
		Message *string         `json:"message"`
		Props   json.RawMessage `json:"props"`
	}
	if err := json.Unmarshal(body, &in); err != nil {
		apiErr(w, http.StatusBadRequest, "api.context.invalid_body_param.app_error", "Invalid or missing post in request body.")
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	p := s.posts[r.PathValue("id")]
	if p == nil {
		apiErr(w, http.StatusNotFound, "app.post.get.app_error", "Unable to get the post.")
		return
	}
	if p.UserID != BotID {
		apiErr(w, http.StatusForbidden, "api.context.permissions.app_error", "You do not have the appropriate permissions.")
		return
	}
	if in.Message != nil {
		p.Message = *in.Message
	}
	if in.Props != nil { // a patch's props replace the post's
		var props inPost
		_ = json.Unmarshal([]byte(`{"props":`+string(in.Props)+`}`), &props)
		p.Buttons = props.buttons()
	}
	p.UpdateAt = max(s.clock, time.Now().UnixMilli())
	p.History = append(p.History, Render(p.Message))
	s.notifyLocked()
	writeJSON(w, http.StatusOK, s.wirePostLocked(p))
}

func (s *Server) postsEphemeral(w http.ResponseWriter, _ *http.Request, body []byte) {
	var in struct {
		UserID string `json:"user_id"`
		Post   inPost `json:"post"`
	}
	if err := json.Unmarshal(body, &in); err != nil || in.UserID == "" {
		apiErr(w, http.StatusBadRequest, "api.context.invalid_body_param.app_error", "Invalid or missing user_id in request body.")
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.channels[in.Post.ChannelID] == nil {
		apiErr(w, http.StatusForbidden, "api.context.permissions.app_error", "You do not have the appropriate permissions.")
		return
	}
	s.ephemerals = append(s.ephemerals, Ephemeral{ChannelID: in.Post.ChannelID, UserID: in.UserID, Text: Render(in.Post.Message)})
	s.notifyLocked()
	writeJSON(w, http.StatusCreated, map[string]any{"id": "ephemeral", "channel_id": in.Post.ChannelID, "message": in.Post.Message})
}

// channelPosts answers the posts created or edited since a time (ms), as
// {order, posts}, newest first.
func (s *Server) channelPosts(w http.ResponseWriter, r *http.Request, _ []byte) {
	since, _ := strconv.ParseInt(r.URL.Query().Get("since"), 10, 64)
	s.mu.Lock()
	defer s.mu.Unlock()
	c := s.channels[r.PathValue("id")]
	if c == nil {
		apiErr(w, http.StatusForbidden, "api.context.permissions.app_error", "You do not have the appropriate permissions.")
		return
	}
	order := []string{}
	posts := map[string]any{}
	for _, p := range c.posts {
		if p.CreateAt >= since || p.UpdateAt >= since {
			order = append(order, p.ID)
			posts[p.ID] = s.wirePostLocked(p)
		}
	}
	slices.Reverse(order)
	writeJSON(w, http.StatusOK, map[string]any{"order": order, "posts": posts})
}

func (s *Server) filesUpload(w http.ResponseWriter, r *http.Request, body []byte) {
	_, params, _ := strings.Cut(r.Header.Get("Content-Type"), "boundary=")
	mr := multipart.NewReader(bytes.NewReader(body), params)
	var infos []map[string]any
	for {
		part, err := mr.NextPart()
		if err != nil {
			break
		}
		if part.FormName() != "files" {
			continue
		}
		data, _ := io.ReadAll(part)
		s.mu.Lock()
		id := "file" + strconv.Itoa(len(s.files)+1)
		s.files[id] = data
		s.fileInfo[id] = fileMeta{name: part.FileName(), mime: part.Header.Get("Content-Type")}
		s.mu.Unlock()
		infos = append(infos, map[string]any{"id": id, "name": part.FileName(), "size": len(data)})
	}
	if len(infos) == 0 {
		apiErr(w, http.StatusBadRequest, "api.file.upload_file.incorrect_number_of_files.app_error", "No file.")
		return
	}
	writeJSON(w, http.StatusCreated, map[string]any{"file_infos": infos})
}

func (s *Server) filesGet(w http.ResponseWriter, r *http.Request, _ []byte) {
	s.mu.Lock()
	data, ok := s.files[r.PathValue("id")]
	s.mu.Unlock()
	if !ok {
		apiErr(w, http.StatusNotFound, "app.file_info.get.app_error", "Unable to get the file.")
		return
	}
	_, _ = w.Write(data)
}

// wirePostLocked is a post as the REST API and the websocket carry it,
// with its files' metadata.
func (s *Server) wirePostLocked(p *Post) map[string]any {
	m := map[string]any{
		"id": p.ID, "create_at": p.CreateAt, "update_at": p.UpdateAt, "delete_at": 0, "user_id": p.UserID,
		"channel_id": p.ChannelID, "root_id": p.RootID, "message": p.Message, "type": "", "props": map[string]any{},
	}
	if len(p.FileIDs) > 0 {
		m["file_ids"] = p.FileIDs
		var files []map[string]any
		for _, id := range p.FileIDs {
			f := s.fileInfo[id]
			files = append(files, map[string]any{"id": id, "name": f.name, "mime_type": f.mime, "size": len(s.files[id])})
		}
		m["metadata"] = map[string]any{"files": files}
	}
	if p.UserID == BotID {
		m["props"] = map[string]any{"from_bot": "true"}
	}
	return m
}
