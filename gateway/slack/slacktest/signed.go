package slacktest

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"time"
)

type eventsTarget struct {
	eventsURL, interactiveURL, secret string
}

// UseEventsAPI makes the fake deliver events as the Events API does: each
// event a POST to eventsURL, each interaction a POST to interactiveURL,
// signed with signingSecret, answered before the helper that caused it
// returns.
func (s *Server) UseEventsAPI(eventsURL, interactiveURL, signingSecret string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.events = &eventsTarget{eventsURL: eventsURL, interactiveURL: interactiveURL, secret: signingSecret}
}

// postToApp delivers one signed request and returns the status answered.
func (s *Server) postToApp(url, secret string, body []byte) int {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	status, _, err := PostSigned(ctx, url, secret, time.Now(), body)
	if err != nil {
		s.t.Logf("slacktest: delivering to %s: %v", url, err)
	}
	return status
}

// Sign returns the X-Slack-Signature Slack sends with body at the time
// at: "v0=" and the hex HMAC-SHA256 of "v0:<unix seconds>:<body>".
func Sign(secret string, at time.Time, body []byte) string {
	mac := hmac.New(sha256.New, []byte(secret))
	fmt.Fprintf(mac, "v0:%d:", at.Unix())
	mac.Write(body)
	return "v0=" + hex.EncodeToString(mac.Sum(nil))
}

// PostSigned posts body to url as Slack posts to an app: with the
// X-Slack-Request-Timestamp of at and the signature made with secret. A
// body that starts with "{" is sent as JSON, any other as a form. It
// returns the status and body answered.
func PostSigned(ctx context.Context, url, secret string, at time.Time, body []byte) (int, []byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return 0, nil, err
	}
	ct := "application/x-www-form-urlencoded"
	if bytes.HasPrefix(body, []byte("{")) {
		ct = "application/json"
	}
	req.Header.Set("Content-Type", ct)
	req.Header.Set("User-Agent", "Slackbot 1.0 (+https://api.slack.com/robots)")
	req.Header.Set("X-Slack-Request-Timestamp", strconv.FormatInt(at.Unix(), 10))
	req.Header.Set("X-Slack-Signature", Sign(secret, at, body))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, nil, fmt.Errorf("posting to %s: %w", url, err)
	}
	defer resp.Body.Close()
	reply, err := io.ReadAll(resp.Body)
	return resp.StatusCode, reply, err
}

// URLVerification is the body Slack posts to check an Events API
// Request URL; the app must answer the challenge.
func URLVerification(challenge string) []byte {
	b, _ := json.Marshal(map[string]any{"token": "verification-token", "challenge": challenge, "type": "url_verification"})
	return b
}
