package slack

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/gorilla/websocket"
	slackapi "github.com/slack-go/slack"
	"github.com/slack-go/slack/socketmode"

	"github.com/hermes-go/hermes/gateway"
	"github.com/hermes-go/hermes/gateway/internal/backoff"
)

// Socket Mode is driven here rather than by socketmode.Client.Run, which
// hides why a connection ended (a disconnect request, a dropped socket, a
// silent one) and reconnects on its own schedule; the adapter reports the
// reason in its State and backs off with Options.Backoff. The envelopes
// and acks are socketmode's types.

// sessionEnd says why a socket session ended.
type sessionEnd struct {
	reason    string
	fatal     bool  // Run must end: the app token is refused
	err       error // Run's error when fatal
	healthy   bool  // the socket said hello: the failures in a row start over
	requested bool  // Slack asked for a new socket: reconnect at once
	// retryAfter is the least wait Slack asked for (a rate limited
	// apps.connections.open).
	retryAfter time.Duration
}

func (a *Adapter) runSocket(ctx context.Context, h gateway.Handler) error {
	failures := 0
	for {
		end := a.session(ctx, h)
		if ctx.Err() != nil {
			a.report(h, false, "stopped")
			return nil
		}
		if end.fatal {
			a.report(h, false, end.reason)
			return end.err
		}
		if end.healthy {
			failures = 0
		}
		var wait time.Duration
		detail := end.reason + "; reconnecting"
		if !end.requested {
			wait = max(backoff.Jittered(a.o.Backoff, a.o.MaxBackoff, failures), end.retryAfter)
			failures++
			detail += " in " + wait.Round(time.Millisecond).String()
		}
		a.report(h, false, detail)
		a.log.Warn("socket mode connection ended", "reason", end.reason, "reconnect_in", wait)
		if !backoff.Sleep(ctx, wait) {
			a.report(h, false, "stopped")
			return nil
		}
	}
}

// session opens one socket (apps.connections.open, then the websocket)
// and reads it until it ends.
func (a *Adapter) session(ctx context.Context, h gateway.Handler) sessionEnd {
	_, wsURL, err := a.api.StartSocketModeContext(ctx)
	if err != nil {
		if refusedToken(err) {
			return sessionEnd{fatal: true, reason: "apps.connections.open refused the app token: " + err.Error(),
				err: fmt.Errorf("slack apps.connections.open: the app token is refused: %w", err)}
		}
		end := sessionEnd{reason: "apps.connections.open failed: " + err.Error()}
		var rl *slackapi.RateLimitedError
		if errors.As(err, &rl) {
			end.retryAfter = rl.RetryAfter
		}
		return end
	}
	dialer := websocket.Dialer{Proxy: http.ProxyFromEnvironment, HandshakeTimeout: 30 * time.Second}
	conn, resp, err := dialer.DialContext(ctx, wsURL, nil)
	if resp != nil && resp.Body != nil {
		_ = resp.Body.Close()
	}
	if err != nil {
		// The error names the host, never the URL: its ticket is a secret.
		return sessionEnd{reason: "websocket dial failed: " + err.Error()}
	}
	defer conn.Close()
	stop := context.AfterFunc(ctx, func() { _ = conn.Close() })
	defer stop()
	return a.readSocket(ctx, h, conn)
}

// readSocket handles envelopes in the order they come, and acknowledges
// each one once it is handled: a message the handler could not store is
// not acknowledged, so Slack delivers it again.
func (a *Adapter) readSocket(ctx context.Context, h gateway.Handler, conn *websocket.Conn) sessionEnd {
	healthy := false
	conn.SetPingHandler(func(data string) error {
		_ = conn.SetReadDeadline(time.Now().Add(a.o.PingTimeout))
		// A failed pong shows up as a failed read.
		_ = conn.WriteControl(websocket.PongMessage, []byte(data), time.Now().Add(10*time.Second))
		return nil
	})
	for {
		// Only the wait for the next frame counts: a slow handler is not
		// a silent socket.
		_ = conn.SetReadDeadline(time.Now().Add(a.o.PingTimeout))
		_, data, err := conn.ReadMessage()
		if err != nil {
			return sessionEnd{healthy: healthy, reason: a.lost(err)}
		}
		var req socketmode.Request
		if err := json.Unmarshal(data, &req); err != nil {
			a.log.Warn("unreadable socket mode frame", "err", err)
			continue
		}
		switch req.Type {
		case socketmode.RequestTypeHello:
			healthy = true
			a.report(h, true, a.connectedAs())
			continue
		case socketmode.RequestTypeDisconnect:
			return sessionEnd{healthy: healthy, requested: true, reason: fmt.Sprintf("Slack asked for a new connection (%s)", req.Reason)}
		case socketmode.RequestTypeEventsAPI:
			err = a.onEvent(ctx, h, req.Payload)
		case socketmode.RequestTypeInteractive:
			a.onInteractive(ctx, h, req.Payload)
		default:
			a.log.Info("socket mode request not handled", "type", req.Type)
		}
		if err != nil {
			a.log.Warn("event not stored; Slack will deliver it again", "envelope", req.EnvelopeID, "err", err)
			continue
		}
		if req.EnvelopeID == "" {
			continue
		}
		_ = conn.SetWriteDeadline(time.Now().Add(10 * time.Second))
		if err := conn.WriteJSON(socketmode.Response{EnvelopeID: req.EnvelopeID}); err != nil {
			return sessionEnd{healthy: healthy, reason: a.lost(fmt.Errorf("acknowledging envelope %s: %w", req.EnvelopeID, err))}
		}
	}
}

// lost says why a socket failed.
func (a *Adapter) lost(err error) string {
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return fmt.Sprintf("no ping or event from Slack for %s", a.o.PingTimeout)
	}
	var ce *websocket.CloseError
	if errors.As(err, &ce) && ce.Code != websocket.CloseAbnormalClosure {
		return fmt.Sprintf("Slack closed the socket (%d %s)", ce.Code, ce.Text)
	}
	return "socket dropped: " + err.Error()
}
