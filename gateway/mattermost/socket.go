package mattermost

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/gorilla/websocket"

	"github.com/hermes-go/hermes/gateway"
	"github.com/hermes-go/hermes/gateway/internal/backoff"
)

// sessionEnd says why a websocket session ended.
type sessionEnd struct {
	reason  string
	healthy bool // it authenticated: the failures in a row start over
}

// runSocket opens the websocket again and again until ctx ends, waiting
// Backoff (doubled per failure in a row) between tries.
func (a *Adapter) runSocket(ctx context.Context, h gateway.Handler) error {
	failures := 0
	for {
		end := a.session(ctx, h)
		if ctx.Err() != nil {
			a.report(h, false, "stopped")
			return nil
		}
		if end.healthy {
			failures = 0
		}
		wait := backoff.Jittered(a.o.Backoff, a.o.MaxBackoff, failures)
		failures++
		a.report(h, false, fmt.Sprintf("%s; reconnecting in %s", end.reason, wait.Round(time.Millisecond)))
		a.log.Warn("websocket ended", "reason", end.reason, "reconnect_in", wait)
		if !backoff.Sleep(ctx, wait) {
			a.report(h, false, "stopped")
			return nil
		}
	}
}

// socketURL is the websocket's URL: the server's, with ws(s).
func (a *Adapter) socketURL() string {
	u := a.base + "/api/v4/websocket"
	if rest, ok := strings.CutPrefix(u, "https://"); ok {
		return "wss://" + rest
	}
	return "ws://" + strings.TrimPrefix(u, "http://")
}

// frame is what the websocket carries: an event, or the reply to one of
// the client's actions.
type frame struct {
	Event     string          `json:"event"`
	Data      json.RawMessage `json:"data"`
	Broadcast struct {
		ChannelID string `json:"channel_id"`
	} `json:"broadcast"`
	Status   string          `json:"status"`
	SeqReply int64           `json:"seq_reply"`
	Error    json.RawMessage `json:"error"`
}

// session opens one websocket, authenticates with the token
// (authentication_challenge), reads what was posted while it was down,
// then hands on the events until the socket fails.
func (a *Adapter) session(ctx context.Context, h gateway.Handler) sessionEnd {
	dialer := websocket.Dialer{Proxy: http.ProxyFromEnvironment, HandshakeTimeout: 30 * time.Second}
	conn, resp, err := dialer.DialContext(ctx, a.socketURL(), nil)
	if resp != nil && resp.Body != nil {
		_ = resp.Body.Close()
	}
	if err != nil {
		return sessionEnd{reason: "websocket dial failed: " + err.Error()}
	}
	defer conn.Close()
	stop := context.AfterFunc(ctx, func() { _ = conn.Close() })
	defer stop()
	conn.SetPingHandler(func(data string) error {
		_ = conn.SetReadDeadline(time.Now().Add(a.o.PingTimeout))
		_ = conn.WriteControl(websocket.PongMessage, []byte(data), time.Now().Add(10*time.Second))
		return nil
	})

	_ = conn.SetWriteDeadline(time.Now().Add(10 * time.Second))
	challenge := map[string]any{"seq": 1, "action": "authentication_challenge", "data": map[string]string{"token": a.o.Token}}
	if err := conn.WriteJSON(challenge); err != nil {
		return sessionEnd{reason: a.lost(fmt.Errorf("sending the authentication challenge: %w", err))}
	}
	// Events may come before the challenge's reply: they wait here, to be
	// handled after the catch-up, in order.
	var early []frame
	for {
		f, end := a.read(conn)
		if end != nil {
			return *end
		}
		if f.SeqReply != 1 {
			early = append(early, f)
			continue
		}
		if f.Status != "OK" {
			return sessionEnd{reason: fmt.Sprintf("the server refused the websocket's authentication: %s", f.Error)}
		}
		break
	}
	a.report(h, true, "@"+a.me().username+" on "+a.base)
	if err := a.catchUp(ctx, h); err != nil {
		return sessionEnd{healthy: true, reason: "reading the posts made while disconnected: " + err.Error()}
	}
	for _, f := range early {
		if err := a.onFrame(ctx, h, f); err != nil {
			return sessionEnd{healthy: true, reason: err.Error()}
		}
	}
	for {
		f, end := a.read(conn)
		if end != nil {
			end.healthy = true
			return *end
		}
		if err := a.onFrame(ctx, h, f); err != nil {
			// Reconnecting reads the post again from the REST API.
			return sessionEnd{healthy: true, reason: err.Error()}
		}
	}
}

// read waits for the next frame, at most PingTimeout.
func (a *Adapter) read(conn *websocket.Conn) (frame, *sessionEnd) {
	_ = conn.SetReadDeadline(time.Now().Add(a.o.PingTimeout))
	var f frame
	_, data, err := conn.ReadMessage()
	if err != nil {
		return f, &sessionEnd{reason: a.lost(err)}
	}
	if err := json.Unmarshal(data, &f); err != nil {
		a.log.Warn("unreadable websocket frame", "err", err)
	}
	return f, nil
}

// onFrame handles one event; its error means a post was not stored.
func (a *Adapter) onFrame(ctx context.Context, h gateway.Handler, f frame) error {
	if f.Event != "posted" {
		return nil
	}
	var d struct {
		ChannelType string `json:"channel_type"`
		Post        string `json:"post"`
		Mentions    string `json:"mentions"`
	}
	if err := json.Unmarshal(f.Data, &d); err != nil {
		a.log.Warn("unreadable posted event", "err", err)
		return nil
	}
	var p post
	if err := json.Unmarshal([]byte(d.Post), &p); err != nil {
		a.log.Warn("unreadable post in a posted event", "err", err)
		return nil
	}
	var mentions []string
	if d.Mentions != "" {
		_ = json.Unmarshal([]byte(d.Mentions), &mentions)
	}
	return a.onPost(ctx, h, p, d.ChannelType, mentions)
}

// lost says why a socket failed.
func (a *Adapter) lost(err error) string {
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return fmt.Sprintf("no ping or event from the server for %s", a.o.PingTimeout)
	}
	var ce *websocket.CloseError
	if errors.As(err, &ce) && ce.Code != websocket.CloseAbnormalClosure {
		return fmt.Sprintf("the server closed the websocket (%d %s)", ce.Code, ce.Text)
	}
	return "websocket dropped: " + err.Error()
}
