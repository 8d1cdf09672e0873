package discordtest

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

func (s *Server) routes() http.Handler {
	api := http.NewServeMux()
	api.HandleFunc("GET /gateway", s.getGateway)
	api.HandleFunc("GET /gateway/bot", s.getGateway)
	api.HandleFunc("GET /users/@me", s.getMe)
	api.HandleFunc("GET /channels/{id}", s.getChannel)
	api.HandleFunc("GET /channels/{id}/messages", s.listMessages)
	api.HandleFunc("POST /channels/{id}/messages", s.postMessage)
	api.HandleFunc("PATCH /channels/{id}/messages/{mid}", s.patchMessage)
	api.HandleFunc("POST /channels/{id}/typing", s.postTyping)
	api.HandleFunc("POST /interactions/{id}/{token}/callback", s.postCallback)
	api.HandleFunc("POST /webhooks/{app}/{token}", s.postFollowup)
	api.HandleFunc("PUT /applications/{app}/commands", s.putCommands)

	mux := http.NewServeMux()
	mux.HandleFunc("GET /gateway", s.serveGateway)
	mux.HandleFunc("GET /gateway/{$}", s.serveGateway) // discordgo adds a slash
	mux.HandleFunc("GET /attachments/{id}/{name}", s.getAttachment)
	mux.Handle(apiPrefix+"/", s.recorded(http.StripPrefix(apiPrefix, api)))
	return mux
}

type requestKey struct{}

// body returns the recorded request of a call being served.
func body(r *http.Request) *Request { return r.Context().Value(requestKey{}).(*Request) }

// recorded records a REST call, answers a scripted failure or a missing
// token, and otherwise serves it.
func (s *Server) recorded(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		req := readRequest(r)
		s.mu.Lock()
		i := len(s.requests)
		s.requests = append(s.requests, *req)
		s.notifyLocked()
		s.mu.Unlock()
		if !s.waitHeld(r.Context(), req.Method, req.Path) {
			return // the client went away: nothing reached Discord
		}
		s.mu.Lock()
		f, failed := s.rateLimitedLocked(req.Method, req.Path)
		if !failed {
			f, failed = s.takeFailureLocked(req.Method, req.Path)
			if failed && f.Enforce && f.Status == http.StatusTooManyRequests {
				s.startLimitLocked(req.Method, req.Path, f.RetryAfter)
			}
		}
		token := s.token
		s.mu.Unlock()

		rec := &statusWriter{ResponseWriter: w, status: http.StatusOK}
		switch {
		case failed:
			f.write(rec)
		case needsToken(req.Path) && !validToken(r.Header.Get("Authorization"), token):
			apiError(rec, http.StatusUnauthorized, 0, "401: Unauthorized")
		default:
			next.ServeHTTP(rec, r.WithContext(context.WithValue(r.Context(), requestKey{}, req)))
		}
		s.mu.Lock()
		s.requests[i].Status = rec.status
		s.notifyLocked()
		s.mu.Unlock()
	})
}

// needsToken says whether a path needs the bot token: interaction
// callbacks and followups are authorized by the interaction's token.
func needsToken(path string) bool {
	return !strings.HasPrefix(path, "/interactions/") && !strings.HasPrefix(path, "/webhooks/")
}

func validToken(header, token string) bool { return header == "Bot "+token }

type statusWriter struct {
	http.ResponseWriter
	status int
}

func (w *statusWriter) WriteHeader(code int) {
	w.status = code
	w.ResponseWriter.WriteHeader(code)
}

func readRequest(r *http.Request) *Request {
	data, _ := io.ReadAll(r.Body)
	req := &Request{
		Method: r.Method, Path: strings.TrimPrefix(r.URL.Path, apiPrefix), Query: r.URL.Query(),
		Header: r.Header.Clone(), Body: data, At: time.Now(),
	}
	mt, params, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	switch mt {
	case "application/json":
		_ = json.Unmarshal(data, &req.JSON)
	case "multipart/form-data":
		mr := multipart.NewReader(bytes.NewReader(data), params["boundary"])
		for {
			p, err := mr.NextPart()
			if err != nil {
				break
			}
			content, _ := io.ReadAll(p)
			if p.FormName() == "payload_json" {
				_ = json.Unmarshal(content, &req.JSON)
				continue
			}
			req.Files = append(req.Files, File{
				Field: p.FormName(), Name: p.FileName(), ContentType: p.Header.Get("Content-Type"), Data: content,
			})
		}
	}
	return req
}

func (s *Server) getGateway(w http.ResponseWriter, r *http.Request) {
	out := map[string]any{"url": s.GatewayURL()}
	if strings.HasSuffix(r.URL.Path, "/bot") {
		out["shards"] = 1
		out["session_start_limit"] = map[string]any{"total": 1000, "remaining": 999, "reset_after": 0, "max_concurrency": 1}
	}
	writeJSON(w, http.StatusOK, out)
}

func (s *Server) getMe(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, s.Bot().wire())
}

func (s *Server) getChannel(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	c, ok := s.channels[r.PathValue("id")]
	var out map[string]any
	if ok {
		out = c.wire()
	}
	s.mu.Unlock()
	if !ok {
		apiError(w, http.StatusNotFound, 10003, "Unknown Channel")
		return
	}
	writeJSON(w, http.StatusOK, out)
}

// listMessages serves GET /channels/{id}/messages?after=&limit=, newest
// first as Discord answers.
func (s *Server) listMessages(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	after := r.URL.Query().Get("after")
	limit, _ := strconv.Atoi(r.URL.Query().Get("limit"))
	if limit <= 0 || limit > 100 {
		limit = 50
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.channels[id]; !ok {
		apiError(w, http.StatusNotFound, 10003, "Unknown Channel")
		return
	}
	var picked []*Message
	for _, mid := range s.order[id] {
		if after == "" || compareIDs(mid, after) > 0 {
			picked = append(picked, s.messages[mid])
		}
	}
	if after != "" && len(picked) > limit {
		picked = picked[:limit] // the oldest ones after the cursor
	} else if len(picked) > limit {
		picked = picked[len(picked)-limit:]
	}
	out := []any{}
	for i := len(picked) - 1; i >= 0; i-- {
		m := s.messageWireLocked(picked[i])
		// Messages read over REST do not say their guild.
		delete(m, "guild_id")
		delete(m, "member")
		out = append(out, m)
	}
	writeJSON(w, http.StatusOK, out)
}

// outgoing is what the bot sends in a message body.
type outgoing struct {
	Content    *string `json:"content"`
	Flags      int     `json:"flags"`
	Components []struct {
		Type       int `json:"type"`
		Components []struct {
			Type     int    `json:"type"`
			Style    int    `json:"style"`
			Label    string `json:"label"`
			CustomID string `json:"custom_id"`
		} `json:"components"`
	} `json:"components"`
	Reference *struct {
		MessageID       string `json:"message_id"`
		FailIfNotExists *bool  `json:"fail_if_not_exists"`
	} `json:"message_reference"`
	AllowedMentions json.RawMessage `json:"allowed_mentions"`
}

func decodeOutgoing(req *Request) (outgoing, error) {
	var o outgoing
	raw, err := json.Marshal(req.JSON)
	if err != nil {
		return o, err
	}
	return o, json.Unmarshal(raw, &o)
}

// buttons checks components as Discord does and returns the buttons; ""
// when valid, else the reason.
func (o outgoing) buttons() ([][]Button, string) {
	if len(o.Components) > 5 {
		return nil, "components: at most 5 action rows"
	}
	var rows [][]Button
	for _, row := range o.Components {
		if row.Type != 1 || len(row.Components) == 0 || len(row.Components) > 5 {
			return nil, "components: an action row holds 1 to 5 buttons"
		}
		var bs []Button
		for _, b := range row.Components {
			switch {
			case b.Type != 2:
				return nil, "components: not a button"
			case b.CustomID == "" || len(b.CustomID) > 100:
				return nil, "components: custom_id must be 1 to 100 characters"
			case utf8.RuneCountInString(b.Label) > 80:
				return nil, "components: label must be at most 80 characters"
			case b.Style < 1 || b.Style > 4:
				return nil, "components: invalid button style"
			}
			bs = append(bs, Button{Label: b.Label, CustomID: b.CustomID, Style: b.Style})
		}
		rows = append(rows, bs)
	}
	return rows, ""
}

func (s *Server) postMessage(w http.ResponseWriter, r *http.Request) {
	req := body(r)
	o, err := decodeOutgoing(req)
	if err != nil {
		apiError(w, http.StatusBadRequest, 50109, "The request body contains invalid JSON.")
		return
	}
	content := ""
	if o.Content != nil {
		content = *o.Content
	}
	rows, bad := o.buttons()
	s.mu.Lock()
	defer s.mu.Unlock()
	ch, ok := s.channels[r.PathValue("id")]
	switch {
	case !ok:
		apiError(w, http.StatusNotFound, 10003, "Unknown Channel")
		return
	case bad != "":
		apiError(w, http.StatusBadRequest, 50035, "Invalid Form Body: "+bad)
		return
	case utf8.RuneCountInString(content) > 2000:
		apiError(w, http.StatusBadRequest, 50035, "Invalid Form Body: content: Must be 2000 or fewer in length.")
		return
	case content == "" && len(req.Files) == 0 && len(rows) == 0:
		apiError(w, http.StatusBadRequest, 50006, "Cannot send an empty message")
		return
	}
	m := &Message{
		ID: s.newIDLocked(), ChannelID: ch.ID, GuildID: ch.GuildID, Author: s.bot,
		Content: content, Buttons: rows, Flags: o.Flags, AllowedMentions: o.AllowedMentions,
		History: []string{content},
	}
	if o.Reference != nil {
		_, known := s.messages[o.Reference.MessageID]
		failIfMissing := o.Reference.FailIfNotExists == nil || *o.Reference.FailIfNotExists
		if !known && failIfMissing {
			apiError(w, http.StatusBadRequest, 50035, "Invalid Form Body: message_reference: Unknown message")
			return
		}
		m.ReplyTo = o.Reference.MessageID
	}
	for _, f := range req.Files {
		m.Attachments = append(m.Attachments, s.storeAttachmentLocked(Attachment{
			Filename: f.Name, ContentType: f.ContentType, Data: f.Data,
		}))
	}
	s.storeMessageLocked(m)
	writeJSON(w, http.StatusOK, s.messageWireLocked(m))
}

func (s *Server) patchMessage(w http.ResponseWriter, r *http.Request) {
	req := body(r)
	o, err := decodeOutgoing(req)
	if err != nil {
		apiError(w, http.StatusBadRequest, 50109, "The request body contains invalid JSON.")
		return
	}
	rows, bad := o.buttons()
	s.mu.Lock()
	defer s.mu.Unlock()
	m, ok := s.messages[r.PathValue("mid")]
	switch {
	case !ok || m.ChannelID != r.PathValue("id"):
		apiError(w, http.StatusNotFound, 10008, "Unknown Message")
		return
	case m.Author.ID != s.bot.ID:
		apiError(w, http.StatusForbidden, 50005, "Cannot edit a message authored by another user")
		return
	case bad != "":
		apiError(w, http.StatusBadRequest, 50035, "Invalid Form Body: "+bad)
		return
	case o.Content != nil && utf8.RuneCountInString(*o.Content) > 2000:
		apiError(w, http.StatusBadRequest, 50035, "Invalid Form Body: content: Must be 2000 or fewer in length.")
		return
	}
	if o.Content != nil {
		m.Content = *o.Content
	}
	if _, set := req.JSON["components"]; set {
		m.Buttons = rows
	}
	m.Edits++
	m.History = append(m.History, m.Content)
	writeJSON(w, http.StatusOK, s.messageWireLocked(m))
}

func (s *Server) postTyping(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	id := r.PathValue("id")
	if _, ok := s.channels[id]; !ok {
		apiError(w, http.StatusNotFound, 10003, "Unknown Channel")
		return
	}
	s.typing[id]++
	w.WriteHeader(http.StatusNoContent)
}

// postCallback answers POST /interactions/{id}/{token}/callback: the
// first response to an interaction acknowledges it; a second is refused.
// A message (type 4) that is not ephemeral shows in the channel.
func (s *Server) postCallback(w http.ResponseWriter, r *http.Request) {
	req := body(r)
	var resp struct {
		Type int      `json:"type"`
		Data outgoing `json:"data"`
	}
	raw, _ := json.Marshal(req.JSON)
	_ = json.Unmarshal(raw, &resp)
	s.mu.Lock()
	held := s.held
	s.mu.Unlock()
	if held != nil {
		select {
		case <-held:
		case <-r.Context().Done():
			return
		}
	}
	content := ""
	if resp.Data.Content != nil {
		content = *resp.Data.Content
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	in, ok := s.interactions[r.PathValue("id")]
	switch {
	case !ok || in.Token != r.PathValue("token"):
		apiError(w, http.StatusNotFound, 10062, "Unknown interaction")
		return
	case len(in.Callbacks) > 0:
		apiError(w, http.StatusBadRequest, 40060, "Interaction has already been acknowledged.")
		return
	case resp.Type == 4 && content == "":
		apiError(w, http.StatusBadRequest, 50006, "Cannot send an empty message")
		return
	case resp.Type == 4 && utf8.RuneCountInString(content) > 2000:
		apiError(w, http.StatusBadRequest, 50035, "Invalid Form Body: data.content: Must be 2000 or fewer in length.")
		return
	}
	in.Callbacks = append(in.Callbacks, resp.Type)
	close(s.answeredLocked(in.ID))
	switch resp.Type {
	case 4:
		m := Message{
			ID: s.newIDLocked(), ChannelID: in.ChannelID, GuildID: in.GuildID, Author: s.bot,
			Content: content, Flags: resp.Data.Flags, AllowedMentions: resp.Data.AllowedMentions,
			History: []string{content},
		}
		in.Replies = append(in.Replies, m)
		s.showLocked(m)
	case 7:
		if m, ok := s.messages[in.MessageID]; ok && resp.Data.Content != nil {
			m.Content = *resp.Data.Content
			m.Edits++
			m.History = append(m.History, m.Content)
		}
	}
	w.WriteHeader(http.StatusNoContent)
}

// postFollowup answers POST /webhooks/{app}/{token}: a followup message
// to an acknowledged press.
func (s *Server) postFollowup(w http.ResponseWriter, r *http.Request) {
	req := body(r)
	o, _ := decodeOutgoing(req)
	s.mu.Lock()
	defer s.mu.Unlock()
	in, ok := s.byToken[r.PathValue("token")]
	switch {
	case !ok || r.PathValue("app") != s.appID:
		apiError(w, http.StatusNotFound, 10015, "Unknown Webhook")
		return
	case len(in.Callbacks) == 0:
		apiError(w, http.StatusNotFound, 10015, "Unknown Webhook")
		return
	case o.Content == nil || *o.Content == "":
		apiError(w, http.StatusBadRequest, 50006, "Cannot send an empty message")
		return
	}
	m := Message{
		ID: s.newIDLocked(), ChannelID: in.ChannelID, GuildID: in.GuildID, Author: s.bot,
		Content: *o.Content, Flags: o.Flags, AllowedMentions: o.AllowedMentions,
		History: []string{*o.Content},
	}
	in.Replies = append(in.Replies, m)
	s.showLocked(m)
	if r.URL.Query().Get("wait") != "true" {
		w.WriteHeader(http.StatusNoContent)
		return
	}
	writeJSON(w, http.StatusOK, s.messageWireLocked(&m))
}

func (s *Server) getAttachment(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	a, ok := s.attachments[r.URL.Path]
	s.mu.Unlock()
	if !ok {
		http.NotFound(w, r)
		return
	}
	if a.ContentType != "" {
		w.Header().Set("Content-Type", a.ContentType)
	}
	_, _ = w.Write(a.Data)
}

func (s *Server) storeAttachmentLocked(a Attachment) Attachment {
	a.ID = s.newIDLocked()
	path := "/attachments/" + a.ID + "/" + a.Filename
	a.URL = s.hs.URL + path
	a.Data = slices.Clone(a.Data)
	s.attachments[path] = a
	return a
}

// showLocked puts a response to an interaction in its channel unless
// it is ephemeral.
func (s *Server) showLocked(m Message) {
	if !m.Ephemeral() {
		cp := cloneMessage(&m)
		s.storeMessageLocked(&cp)
	}
}

func (s *Server) storeMessageLocked(m *Message) {
	s.messages[m.ID] = m
	s.order[m.ChannelID] = append(s.order[m.ChannelID], m.ID)
	s.notifyLocked()
}

// messageWireLocked renders a message as Discord sends it, with the
// message it replies to as referenced_message.
func (s *Server) messageWireLocked(m *Message) map[string]any {
	out := s.messageFieldsLocked(m)
	if m.ReplyTo != "" {
		ref := map[string]any{"message_id": m.ReplyTo, "channel_id": m.ChannelID}
		if m.GuildID != "" {
			ref["guild_id"] = m.GuildID
		}
		out["message_reference"] = ref
		out["type"] = 19
		out["referenced_message"] = nil
		if replied, ok := s.messages[m.ReplyTo]; ok {
			out["referenced_message"] = s.messageFieldsLocked(replied)
		}
	}
	return out
}

func (s *Server) messageFieldsLocked(m *Message) map[string]any {
	mentions := []any{}
	for _, u := range m.Mentions {
		mentions = append(mentions, u.wire())
	}
	attachments := []any{}
	for _, a := range m.Attachments {
		attachments = append(attachments, a.wire())
	}
	rows := []any{}
	for _, row := range m.Buttons {
		var bs []any
		for _, b := range row {
			bs = append(bs, map[string]any{"type": 2, "style": b.Style, "label": b.Label, "custom_id": b.CustomID})
		}
		rows = append(rows, map[string]any{"type": 1, "components": bs})
	}
	out := map[string]any{
		"id": m.ID, "channel_id": m.ChannelID, "author": m.Author.wire(), "content": m.Content,
		"timestamp": time.Now().UTC().Format(time.RFC3339Nano), "edited_timestamp": nil,
		"tts": false, "mention_everyone": false, "mentions": mentions, "mention_roles": []any{},
		"attachments": attachments, "embeds": []any{}, "pinned": false, "type": 0,
		"flags": m.Flags, "components": rows,
	}
	if m.Edits > 0 {
		out["edited_timestamp"] = time.Now().UTC().Format(time.RFC3339Nano)
	}
	if m.GuildID != "" {
		out["guild_id"] = m.GuildID
		out["member"] = map[string]any{"roles": []any{}, "nick": nil, "deaf": false, "mute": false}
	}
	return out
}
