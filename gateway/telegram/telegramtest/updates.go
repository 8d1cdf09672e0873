package telegramtest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"time"
)

// conflictGrace is how long a getUpdates waits for a held one to end
// before it is refused with 409: a client that gave up on its poll and
// asks again must not meet its own ghost.
const conflictGrace = 250 * time.Millisecond

// push queues an update for the bot and returns its update_id; s.mu is
// held.
func (s *Server) push(u wireUpdate) int64 {
	s.nextUpdate++
	u.UpdateID = s.nextUpdate
	body, err := json.Marshal(u)
	if err != nil {
		panic(fmt.Sprintf("telegramtest: marshal update: %v", err))
	}
	s.updates = append(s.updates, queued{id: u.UpdateID, body: body})
	s.notify()
	return u.UpdateID
}

// Pending counts the updates the bot has not confirmed yet.
func (s *Server) Pending() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.updates)
}

// Delivered counts how often an update was handed to the bot (in
// getUpdates answers, or posted to its webhook).
func (s *Server) Delivered(updateID int64) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.delivered[updateID]
}

// Polling says whether a getUpdates is being held.
func (s *Server) Polling() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.polling
}

// confirm forgets the updates an offset confirms; s.mu is held.
func (s *Server) confirm(offset int64) {
	before := len(s.updates)
	defer func() {
		if len(s.updates) != before {
			s.notify()
		}
	}()
	switch {
	case offset > 0:
		i := 0
		for i < len(s.updates) && s.updates[i].id < offset {
			i++
		}
		s.updates = s.updates[i:]
	case offset < 0:
		if keep := int(-offset); keep < len(s.updates) {
			s.updates = s.updates[len(s.updates)-keep:]
		}
	}
}

// getUpdates is the long poll: updates below offset are forgotten for
// good; the rest (up to limit) are answered at once, or the request is
// held until one arrives or timeout seconds pass. One poller at a time:
// another concurrent getUpdates gets 409.
func (s *Server) getUpdates(q *request) (any, error) {
	offset, limit, timeout := q.int64("offset"), q.int("limit"), q.int("timeout")
	if limit <= 0 || limit > 100 {
		limit = 100
	}
	s.mu.Lock()
	if s.hook != nil {
		s.mu.Unlock()
		return nil, &WebhookActive
	}
	if s.polling {
		done := s.pollDone
		s.mu.Unlock()
		select {
		case <-done:
		case <-time.After(conflictGrace):
		}
		s.mu.Lock()
	}
	if s.conflict || s.polling {
		s.mu.Unlock()
		return nil, &Conflict
	}
	s.polling = true
	s.pollDone = make(chan struct{})
	drop := s.drop
	defer func() {
		s.polling = false
		close(s.pollDone)
		s.notify()
		s.mu.Unlock()
	}()
	s.confirm(offset)
	expire := time.NewTimer(time.Duration(timeout) * time.Second)
	defer expire.Stop()
	for {
		if s.conflict {
			return nil, &Conflict
		}
		if len(s.updates) > 0 || timeout <= 0 {
			batch := []json.RawMessage{}
			for _, u := range s.updates[:min(limit, len(s.updates))] {
				batch = append(batch, u.body)
				s.delivered[u.id]++
			}
			return batch, nil
		}
		changed := s.changed
		s.mu.Unlock()
		select {
		case <-changed:
			s.mu.Lock()
		case <-expire.C:
			s.mu.Lock()
			return []json.RawMessage{}, nil
		case <-q.ctx.Done():
			s.mu.Lock()
			return nil, errHangUp
		case <-drop:
			s.mu.Lock()
			return nil, errHangUp
		case <-s.closed:
			s.mu.Lock()
			return nil, errHangUp
		}
	}
}

type webhook struct {
	url    string
	secret string
	stop   chan struct{}
}

var secretToken = regexp.MustCompile(`^[A-Za-z0-9_-]{1,256}$`)

// setWebhook makes the fake post updates to a URL, with the secret in
// X-Telegram-Bot-Api-Secret-Token, as Telegram does; an empty url
// removes the webhook. Unlike Telegram it takes http:// URLs.
func (s *Server) setWebhook(q *request) (any, error) {
	url, secret := q.params["url"], q.params["secret_token"]
	if secret != "" && !secretToken.MatchString(secret) {
		return nil, &APIError{Code: 400, Description: "Bad Request: secret token contains unallowed characters"}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.stopWebhook()
	if q.params["drop_pending_updates"] == "true" {
		s.updates = nil
	}
	if url == "" {
		return true, nil
	}
	s.hook = &webhook{url: url, secret: secret, stop: make(chan struct{})}
	go s.deliver(s.hook)
	s.notify()
	return true, nil
}

func (s *Server) deleteWebhook(q *request) (any, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.stopWebhook()
	if q.params["drop_pending_updates"] == "true" {
		s.updates = nil
	}
	s.notify()
	return true, nil
}

func (s *Server) getWebhookInfo(*request) (any, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	info := map[string]any{"url": "", "has_custom_certificate": false, "pending_update_count": len(s.updates)}
	if s.hook != nil {
		info["url"] = s.hook.url
	}
	return info, nil
}

// Webhook returns the webhook's URL and secret token ("" when none is
// set).
func (s *Server) Webhook() (url, secret string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.hook == nil {
		return "", ""
	}
	return s.hook.url, s.hook.secret
}

// stopWebhook ends deliveries to the webhook; s.mu is held.
func (s *Server) stopWebhook() {
	if s.hook != nil {
		close(s.hook.stop)
		s.hook = nil
	}
}

// deliver posts the updates to the webhook one at a time, in order; an
// update is confirmed when the webhook answers 2xx and posted again
// after WebhookRetry otherwise.
func (s *Server) deliver(h *webhook) {
	for {
		s.mu.Lock()
		if len(s.updates) == 0 {
			changed := s.changed
			s.mu.Unlock()
			select {
			case <-changed:
				continue
			case <-h.stop:
				return
			}
		}
		u := s.updates[0]
		s.delivered[u.id]++
		s.mu.Unlock()

		ok := s.postUpdate(h, u.body)
		s.mu.Lock()
		if ok && len(s.updates) > 0 && s.updates[0].id == u.id {
			s.updates = s.updates[1:]
		}
		s.notify()
		s.mu.Unlock()
		if !ok {
			select {
			case <-time.After(s.o.WebhookRetry):
			case <-h.stop:
				return
			}
		}
	}
}

func (s *Server) postUpdate(h *webhook, body []byte) bool {
	req, err := http.NewRequest(http.MethodPost, h.url, bytes.NewReader(body))
	if err != nil {
		return false
	}
	req.Header.Set("Content-Type", "application/json")
	if h.secret != "" {
		req.Header.Set("X-Telegram-Bot-Api-Secret-Token", h.secret)
	}
	resp, err := s.client.Do(req)
	if err != nil {
		return false
	}
	resp.Body.Close()
	return resp.StatusCode/100 == 2
}
