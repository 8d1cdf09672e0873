package slacktest

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strings"
	"time"
	"unicode/utf8"
)

// answer is a Web API reply: {"ok": true, ...} or {"ok": false, "error": code}.
type answer map[string]any

func refuse(code string) answer { return answer{"ok": false, "error": code} }

func ok(fields answer) answer {
	fields["ok"] = true
	return fields
}

// methodFunc answers one Web API method; it runs with s.mu held.
type methodFunc func(s *Server, c *Call) answer

var methods = map[string]methodFunc{
	"auth.test":                    (*Server).authTest,
	"apps.connections.open":        (*Server).connectionsOpen,
	"chat.postMessage":             (*Server).postMessage,
	"chat.update":                  (*Server).update,
	"chat.postEphemeral":           (*Server).postEphemeral,
	"users.info":                   (*Server).usersInfo,
	"files.getUploadURLExternal":   (*Server).getUploadURL,
	"files.completeUploadExternal": (*Server).completeUpload,
}

func (s *Server) serveAPI(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("method")
	params, token, err := readParams(r)
	if err != nil {
		writeJSON(w, http.StatusOK, refuse("invalid_form_data"))
		return
	}
	c := Call{Method: name, Token: token, Params: params, Time: time.Now()}
	if !s.hold(r.Context(), name) {
		s.mu.Lock()
		c.Error = "client went away"
		s.calls = append(s.calls, c)
		s.notifyLocked()
		s.mu.Unlock()
		return
	}
	s.mu.Lock()
	var f Failure
	scripted := false
	if left := s.rateLimitedLocked(&c); left > 0 {
		f, scripted = Failure{RetryAfter: left}, true
	} else if f, scripted = s.nextFailureLocked(name); scripted && f.RetryAfter > 0 && f.Enforce {
		s.startLimitLocked(&c, f.RetryAfter)
	}
	var a answer
	if !scripted {
		a = s.answerLocked(&c)
	}
	switch {
	case scripted && f.RetryAfter > 0:
		c.Error = "http 429"
	case scripted && f.Status != 0:
		c.Error = fmt.Sprintf("http %d", f.Status)
	case scripted:
		c.Error = f.Error
	case a["ok"] != true:
		c.Error, _ = a["error"].(string)
	}
	s.calls = append(s.calls, c)
	s.notifyLocked()
	s.mu.Unlock()

	switch {
	case scripted && f.RetryAfter > 0:
		w.Header().Set("Retry-After", retryAfterHeader(f.RetryAfter))
		writeJSON(w, http.StatusTooManyRequests, refuse("ratelimited"))
	case scripted && f.Status != 0:
		w.Header().Set("Content-Type", "text/html")
		w.WriteHeader(f.Status)
		_, _ = fmt.Fprintf(w, "<html><body>%d</body></html>", f.Status)
	case scripted:
		writeJSON(w, http.StatusOK, refuse(f.Error))
	default:
		writeJSON(w, http.StatusOK, a)
	}
}

// nextFailureLocked takes the next scripted answer for a method.
func (s *Server) nextFailureLocked(method string) (Failure, bool) {
	fs := s.failures[method]
	if len(fs) == 0 {
		return Failure{}, false
	}
	s.failures[method] = fs[1:]
	return fs[0], true
}

// answerLocked checks a call's method and token and runs the method.
func (s *Server) answerLocked(c *Call) answer {
	m, known := methods[c.Method]
	switch {
	case !known:
		s.unexpected = append(s.unexpected, "Web API method "+c.Method)
		return refuse("unknown_method")
	case c.Token == "":
		return refuse("not_authed")
	case c.Method == "apps.connections.open" && c.Token != AppToken:
		return refuse(tokenError(c.Token, "xapp-"))
	case c.Method != "apps.connections.open" && c.Token != BotToken:
		return refuse(tokenError(c.Token, "xoxb-"))
	}
	return m(s, c)
}

// readParams reads a request's form or JSON body, and its token from the
// Authorization header or the token parameter.
func readParams(r *http.Request) (url.Values, string, error) {
	params := url.Values{}
	ct, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	switch ct {
	case "application/json":
		var body map[string]any
		if err := json.NewDecoder(r.Body).Decode(&body); err != nil && !errors.Is(err, io.EOF) {
			return nil, "", err
		}
		for k, v := range body {
			if str, isStr := v.(string); isStr {
				params.Set(k, str)
			} else {
				b, _ := json.Marshal(v)
				params.Set(k, string(b))
			}
		}
	default:
		if err := r.ParseForm(); err != nil {
			return nil, "", err
		}
		params = cloneValues(r.Form)
	}
	token, _ := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	if t := params.Get("token"); t != "" {
		token = t
	}
	params.Del("token")
	return params, token, nil
}

// tokenError is Slack's answer to a token it does not accept: a token of
// another kind than the method wants, or an unknown one.
func tokenError(token, want string) string {
	for _, kind := range []string{"xoxb-", "xapp-", "xoxp-"} {
		if kind != want && strings.HasPrefix(token, kind) {
			return "not_allowed_token_type"
		}
	}
	return "invalid_auth"
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

func (s *Server) authTest(*Call) answer {
	return ok(answer{
		"url": "https://hermes-test.slack.com/", "team": TeamName, "user": BotName,
		"team_id": TeamID, "user_id": BotUserID, "bot_id": BotID,
	})
}

func (s *Server) connectionsOpen(*Call) answer {
	ticket := fmt.Sprintf("ticket-%d", s.nextLocked())
	s.tickets[ticket] = true
	return ok(answer{"url": "ws://" + s.hs.Listener.Addr().String() + "/link/?ticket=" + ticket})
}

// maxText is Slack's limit on a message's text.
const maxText = 40000

func (s *Server) postMessage(c *Call) answer {
	p := c.Params
	id := p.Get("channel")
	if id == "" {
		return refuse("channel_not_found")
	}
	text, blocks := p.Get("text"), p.Get("blocks")
	if text == "" && (blocks == "" || blocks == "[]") {
		return refuse("no_text")
	}
	if utf8.RuneCountInString(text) > maxText {
		return refuse("msg_too_long")
	}
	if code := checkBlocks(blocks); code != "" {
		return refuse(code)
	}
	ch := s.channelLocked(id)
	m := &message{
		ts: s.tsLocked(), threadTS: p.Get("thread_ts"), user: BotUserID, botID: BotID,
		text: text, mrkdwn: p.Get("mrkdwn") != "false",
	}
	if blocks != "" && blocks != "[]" {
		m.blocks = json.RawMessage(blocks)
	}
	if m.threadTS != "" {
		if parent := s.findLocked(id, m.threadTS); parent != nil {
			m.parentUserID = parent.user
		}
	}
	m.remember()
	ch.msgs = append(ch.msgs, m)
	reply := answer{"type": "message", "user": BotUserID, "bot_id": BotID, "text": text, "ts": m.ts}
	if m.threadTS != "" {
		reply["thread_ts"] = m.threadTS
	}
	return ok(answer{"channel": id, "ts": m.ts, "message": reply})
}

func (s *Server) update(c *Call) answer {
	p := c.Params
	id, ts := p.Get("channel"), p.Get("ts")
	if s.channels[id] == nil {
		return refuse("channel_not_found")
	}
	m := s.findLocked(id, ts)
	if m == nil {
		return refuse("message_not_found")
	}
	if m.botID != BotID {
		return refuse("cant_update_message")
	}
	_, hasText := p["text"]
	blocks, hasBlocks := p["blocks"]
	if !hasText && !hasBlocks {
		return refuse("no_text")
	}
	if hasText && utf8.RuneCountInString(p.Get("text")) > maxText {
		return refuse("msg_too_long")
	}
	if hasBlocks {
		if code := checkBlocks(blocks[0]); code != "" {
			return refuse(code)
		}
	}
	if hasText {
		m.text = p.Get("text")
	}
	// Slack keeps a message's blocks unless the update sends some; an
	// empty list removes them.
	if hasBlocks {
		m.blocks = nil
		if blocks[0] != "" && blocks[0] != "[]" {
			m.blocks = json.RawMessage(blocks[0])
		}
	}
	m.edits++
	m.remember()
	return ok(answer{"channel": id, "ts": ts, "text": m.text})
}

func (s *Server) postEphemeral(c *Call) answer {
	p := c.Params
	id, user := p.Get("channel"), p.Get("user")
	if id == "" {
		return refuse("channel_not_found")
	}
	if user == "" {
		return refuse("user_not_in_channel")
	}
	if p.Get("text") == "" && p.Get("blocks") == "" {
		return refuse("no_text")
	}
	ts := s.tsLocked()
	s.ephemerals = append(s.ephemerals, Ephemeral{Channel: id, User: user, ThreadTS: p.Get("thread_ts"), Text: p.Get("text"), TS: ts})
	return ok(answer{"message_ts": ts})
}

func (s *Server) usersInfo(c *Call) answer {
	id := c.Params.Get("user")
	name, known := s.users[id]
	if id == BotUserID {
		name, known = BotName, true
	}
	if !known {
		return refuse("user_not_found")
	}
	return ok(answer{"user": answer{
		"id": id, "team_id": TeamID, "name": strings.ToLower(strings.ReplaceAll(name, " ", ".")), "real_name": name,
		"is_bot": id == BotUserID, "profile": answer{"display_name": name, "real_name": name},
	}})
}

// checkBlocks checks blocks as Slack does for the limits a bot can hit;
// it returns "invalid_blocks" when Slack would refuse them.
func checkBlocks(raw string) string {
	if raw == "" {
		return ""
	}
	var blocks []blockJSON
	if err := json.Unmarshal([]byte(raw), &blocks); err != nil {
		return "invalid_blocks_format"
	}
	if len(blocks) > 50 {
		return "invalid_blocks"
	}
	blockIDs, actionIDs := map[string]bool{}, map[string]bool{}
	for _, b := range blocks {
		if b.BlockID != "" {
			if blockIDs[b.BlockID] || len(b.BlockID) > 255 {
				return "invalid_blocks"
			}
			blockIDs[b.BlockID] = true
		}
		switch b.Type {
		case "section":
			if b.Text == nil || b.Text.Text == "" || utf8.RuneCountInString(b.Text.Text) > 3000 ||
				(b.Text.Type != "mrkdwn" && b.Text.Type != "plain_text") {
				return "invalid_blocks"
			}
		case "actions":
			if len(b.Elements) == 0 || len(b.Elements) > 25 {
				return "invalid_blocks"
			}
			for _, e := range b.Elements {
				if e.Type != "button" {
					continue
				}
				if e.Text == nil || e.Text.Type != "plain_text" || e.Text.Text == "" ||
					utf8.RuneCountInString(e.Text.Text) > 75 || utf8.RuneCountInString(e.Value) > 2000 ||
					e.ActionID == "" || len(e.ActionID) > 255 || actionIDs[e.ActionID] {
					return "invalid_blocks"
				}
				actionIDs[e.ActionID] = true
			}
		}
	}
	return ""
}
