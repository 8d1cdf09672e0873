package signaltest

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"
)

// Error codes signal-cli answers.
const (
	CodeUserError     = -1
	CodeIOError       = -3
	CodeUntrustedKey  = -4
	CodeRateLimit     = -5
	CodeInvalidParams = -32602
	CodeNoMethod      = -32601
)

// Fault is a JSON-RPC error the next send is answered with.
type Fault struct {
	Code       int
	Message    string
	RetryAfter int    // seconds, for a rate limit
	Type       string // the recipient's result type in the error's data (RATE_LIMIT_FAILURE, UNREGISTERED_FAILURE)
}

// RateLimit is signal-cli's answer when Signal rate limits the account.
func RateLimit(seconds int) Fault {
	return Fault{Code: CodeRateLimit, Message: "Failed to send message due to rate limiting", RetryAfter: seconds, Type: "RATE_LIMIT_FAILURE"}
}

// Unregistered is signal-cli's answer for a recipient not on Signal.
func Unregistered() Fault {
	return Fault{Code: CodeUserError, Message: "Failed to send message", Type: "UNREGISTERED_FAILURE"}
}

// FailNextSend answers the next send (or edit) with f.
func (s *Server) FailNextSend(f Fault) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.faults = append(s.faults, f)
}

// EarlyRetries counts the sends and edits made while a rate limit the
// fake answered had not passed.
func (s *Server) EarlyRetries() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.early
}

// HoldSends keeps every later new message (a send without
// editTimestamp) unanswered until ReleaseSends.
func (s *Server) HoldSends() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.hold == nil {
		s.hold = make(chan struct{})
	}
}

// ReleaseSends lets the held sends go on, and later ones pass.
func (s *Server) ReleaseSends() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.hold != nil {
		close(s.hold)
		s.hold = nil
	}
}

// HeldSends counts the sends held now.
func (s *Server) HeldSends() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.held
}

type request struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params map[string]any  `json:"params"`
}

func (s *Server) rpc(w http.ResponseWriter, r *http.Request) {
	var q request
	if err := json.NewDecoder(r.Body).Decode(&q); err != nil {
		writeJSON(w, nil, nil, errorf(-32700, "parse error: %v", err))
		return
	}
	if q.Params == nil {
		q.Params = map[string]any{}
	}
	if a, ok := q.Params["account"]; ok && a != s.account {
		writeJSON(w, q.ID, nil, errorf(CodeInvalidParams, "Specified account does not exist"))
		return
	}
	delete(q.Params, "account")
	var res any
	var e *rpcErr
	switch q.Method {
	case "send":
		res, e = s.send(r, q.Params)
		if e == errHungUp {
			return
		}
	case "sendTyping":
		var chat string
		chat, e = chatOf(q.Params)
		s.record(Call{Method: q.Method, Chat: chat, Params: q.Params}, e)
		res = map[string]any{}
	case "getAttachment":
		res, e = s.getAttachment(q.Params)
		s.record(Call{Method: q.Method, Params: q.Params}, e)
	default:
		e = errorf(CodeNoMethod, "Method not implemented")
		s.record(Call{Method: q.Method, Params: q.Params}, e)
	}
	writeJSON(w, q.ID, res, e)
}

// errHungUp marks a held send whose client went away: nothing is
// answered or recorded as sent.
var errHungUp = &rpcErr{Code: 0, Message: "hung up"}

func (s *Server) record(c Call, e *rpcErr) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c.Time = time.Now()
	if e != nil {
		c.Code = e.Code
	}
	s.calls = append(s.calls, c)
	s.notify()
}

// chatOf reads recipient (a list of one) or groupId.
func chatOf(p map[string]any) (string, *rpcErr) {
	g, _ := p["groupId"].(string)
	rs, _ := p["recipient"].([]any)
	switch {
	case g != "" && len(rs) > 0:
		return "", errorf(CodeUserError, "You cannot specify recipients by phone number and groups at the same time")
	case g != "":
		return g, nil
	case len(rs) == 1:
		if r, ok := rs[0].(string); ok && r != "" {
			return r, nil
		}
	case len(rs) > 1:
		return "", errorf(CodeUserError, "this fake takes one recipient")
	}
	return "", errorf(CodeUserError, "No recipients given")
}

func (s *Server) send(r *http.Request, p map[string]any) (any, *rpcErr) {
	chat, e := chatOf(p)
	text, _ := p["message"].(string)
	edit, _ := p["editTimestamp"].(float64)
	c := Call{Method: "send", Chat: chat, Edit: edit != 0, Params: p}
	if e != nil {
		s.record(c, e)
		return nil, e
	}
	if edit == 0 {
		s.mu.Lock()
		release := s.hold
		if release != nil {
			s.held++
			s.notify()
		}
		s.mu.Unlock()
		if release != nil {
			var gone bool
			select {
			case <-release:
			case <-r.Context().Done():
				gone = true
			case <-s.closed:
				gone = true
			}
			s.mu.Lock()
			s.held--
			s.notify()
			s.mu.Unlock()
			if gone {
				return nil, errHungUp
			}
		}
	}

	s.mu.Lock()
	defer s.mu.Unlock()
	now := time.Now()
	c.Time = now
	if now.Before(s.limitEnd) {
		s.early++
	}
	if len(s.faults) > 0 {
		f := s.faults[0]
		s.faults = s.faults[1:]
		e := &rpcErr{Code: f.Code, Message: f.Message}
		if f.Type != "" {
			res := map[string]any{"recipientAddress": map[string]any{"number": chat}, "type": f.Type}
			if f.RetryAfter > 0 {
				res["retryAfterSeconds"] = f.RetryAfter
				s.limitEnd = now.Add(time.Duration(f.RetryAfter) * time.Second)
			}
			e.Data = map[string]any{"response": map[string]any{"timestamp": s.now(), "results": []any{res}}}
		}
		c.Code = e.Code
		s.calls = append(s.calls, c)
		s.notify()
		return nil, e
	}
	var atts []string
	if as, ok := p["attachments"].([]any); ok {
		for _, a := range as {
			str, _ := a.(string)
			if !strings.HasPrefix(str, "data:") || !strings.Contains(str, ";base64,") {
				c.Code = CodeUserError
				s.calls = append(s.calls, c)
				s.notify()
				return nil, errorf(CodeUserError, "Failed to add attachment %q: this fake takes data URIs", str)
			}
			atts = append(atts, str)
		}
	}
	var ts int64
	if edit != 0 {
		var target *BotMessage
		for _, m := range s.msgs {
			if m.Chat == chat && m.Timestamp == int64(edit) {
				target = m
			}
		}
		if target == nil {
			c.Code = CodeUserError
			s.calls = append(s.calls, c)
			s.notify()
			return nil, errorf(CodeUserError, "no message %d of the bot in %s to edit", int64(edit), chat)
		}
		target.Text = text
		target.History = append(target.History, text)
		ts = s.now() // the edit is a message of its own
	} else {
		m := &BotMessage{Timestamp: s.now(), Chat: chat, Text: text, History: []string{text}, Attachments: atts}
		if qt, ok := p["quoteTimestamp"].(float64); ok {
			m.Quote = int64(qt)
			m.QuoteAuthor, _ = p["quoteAuthor"].(string)
		}
		s.msgs = append(s.msgs, m)
		ts = m.Timestamp
	}
	s.calls = append(s.calls, c)
	s.notify()
	addr := map[string]any{"number": chat}
	return map[string]any{"timestamp": ts, "results": []any{map[string]any{"recipientAddress": addr, "type": "SUCCESS"}}}, nil
}

// getAttachment serves a file a person sent, by id, to a request that
// names where it was sent (recipient or groupId), as signal-cli asks.
func (s *Server) getAttachment(p map[string]any) (any, *rpcErr) {
	id, _ := p["id"].(string)
	rcpt, _ := p["recipient"].(string)
	group, _ := p["groupId"].(string)
	if (rcpt == "") == (group == "") {
		return nil, errorf(CodeUserError, "one of recipient and groupId is required")
	}
	from := rcpt
	if group != "" {
		from = group
	}
	s.mu.Lock()
	f, ok := s.files[id]
	s.mu.Unlock()
	if !ok || f.from != from {
		return nil, errorf(CodeUserError, "Could not find attachment with ID: %s", id)
	}
	return map[string]any{"data": base64.StdEncoding.EncodeToString(f.data)}, nil
}

// DataOf decodes an attachment the bot sent as a data URI: its file name
// and content.
func DataOf(uri string) (name string, data []byte, err error) {
	head, b64, ok := strings.Cut(strings.TrimPrefix(uri, "data:"), ";base64,")
	if !ok {
		return "", nil, fmt.Errorf("not a base64 data URI")
	}
	for _, part := range strings.Split(head, ";") {
		if v, ok := strings.CutPrefix(part, "filename="); ok {
			name = v
		}
	}
	data, err = base64.StdEncoding.DecodeString(b64)
	return name, data, err
}
