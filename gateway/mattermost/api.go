package mattermost

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"time"

	"github.com/hermes-go/hermes/gateway"
)

// maxAnswer bounds what is read of a REST answer.
const maxAnswer = 8 << 20

// apiError is the body of a Mattermost error answer.
type apiError struct {
	ID      string `json:"id"`
	Message string `json:"message"`
}

// call makes one REST request with the bot's token: body (when not nil)
// goes as JSON, and a 2xx answer is decoded into out (when not nil).
// Refusals are classified by status (see classify).
func (a *Adapter) call(ctx context.Context, method, path string, body, out any) error {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return fmt.Errorf("mattermost %s %s: %w", method, path, err)
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, a.base+path, rd)
	if err != nil {
		return fmt.Errorf("mattermost %s %s: %w", method, path, err)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	return a.do(req, out)
}

// do sends a prepared request with the bot's token.
func (a *Adapter) do(req *http.Request, out any) error {
	req.Header.Set("Authorization", "Bearer "+a.o.Token)
	what := req.Method + " " + req.URL.Path
	resp, err := a.http.Do(req)
	if err != nil {
		return fmt.Errorf("mattermost %s: %w", what, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxAnswer))
	if err != nil {
		return fmt.Errorf("mattermost %s: reading the answer: %w", what, err)
	}
	if resp.StatusCode/100 != 2 {
		return classify(what, resp, data)
	}
	if out != nil {
		if err := json.Unmarshal(data, out); err != nil {
			return fmt.Errorf("mattermost %s: unreadable answer: %w", what, err)
		}
	}
	return nil
}

// classify turns a refusal into a *gateway.SendError: 429 carries the
// wait the server asks for (Retry-After, else X-RateLimit-Reset, else a
// second); 400, 401, 403, 404 and 413 are Permanent (a bad request, a
// token or channel closed to the bot, a channel or post that is gone).
// 5xx and other statuses stay plain errors, retried by the gateway.
func classify(what string, resp *http.Response, body []byte) error {
	var ae apiError
	_ = json.Unmarshal(body, &ae)
	msg := ae.Message
	if msg == "" {
		msg = string(bytes.TrimSpace(body))
		if len(msg) > 200 {
			msg = msg[:200] + "…"
		}
	}
	err := fmt.Errorf("mattermost %s: %s: %s", what, resp.Status, msg)
	switch code := resp.StatusCode; code {
	case http.StatusTooManyRequests:
		return &gateway.SendError{RetryAfter: retryAfter(resp.Header), Status: code, Err: err}
	case http.StatusBadRequest, http.StatusUnauthorized, http.StatusForbidden, http.StatusNotFound, http.StatusRequestEntityTooLarge:
		return &gateway.SendError{Permanent: true, Status: code, Err: err}
	}
	return err
}

// retryAfter reads the wait of a 429 in whole seconds: Retry-After, or
// X-RateLimit-Reset (the seconds until the limit resets, in Mattermost's
// throttling); at least a second.
func retryAfter(h http.Header) time.Duration {
	for _, name := range []string{"Retry-After", "X-RateLimit-Reset"} {
		if n, err := strconv.Atoi(h.Get(name)); err == nil && n > 0 {
			return time.Duration(n) * time.Second
		}
	}
	return time.Second
}
