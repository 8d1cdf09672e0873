package slack

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"time"

	slackapi "github.com/slack-go/slack"
	"github.com/slack-go/slack/slackevents"

	"github.com/hermes-go/hermes/gateway"
)

// maxEventBody bounds what the endpoint reads of a request.
const maxEventBody = 1 << 20

// runEvents serves the Events API endpoint until ctx ends: Slack posts
// events to EventsPath and button presses to InteractivePath.
func (a *Adapter) runEvents(ctx context.Context, h gateway.Handler) error {
	ln := a.o.EventsListener
	if ln == nil {
		var err error
		if ln, err = net.Listen("tcp", a.o.EventsListen); err != nil {
			a.report(h, false, "cannot listen for the Events API: "+err.Error())
			return fmt.Errorf("slack events api: %w", err)
		}
	}
	mux := http.NewServeMux()
	mux.HandleFunc("POST "+EventsPath, func(w http.ResponseWriter, r *http.Request) { a.serveEvent(w, r, h) })
	mux.HandleFunc("POST "+InteractivePath, func(w http.ResponseWriter, r *http.Request) { a.serveInteraction(w, r, h) })
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	a.report(h, true, fmt.Sprintf("%s, Events API on http://%s%s", a.connectedAs(), ln.Addr(), EventsPath))
	select {
	case <-ctx.Done():
		shutdown, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(shutdown)
		a.report(h, false, "stopped")
		return nil
	case err := <-served:
		a.report(h, false, "the Events API endpoint stopped: "+err.Error())
		return fmt.Errorf("slack events api: %w", err)
	}
}

// verified reads a request's body and checks its signature and timestamp
// (at most 5 minutes from now) with the signing secret.
func (a *Adapter) verified(r *http.Request) ([]byte, error) {
	body, err := io.ReadAll(io.LimitReader(r.Body, maxEventBody))
	if err != nil {
		return nil, fmt.Errorf("reading the request: %w", err)
	}
	sv, err := slackapi.NewSecretsVerifier(r.Header, a.o.SigningSecret)
	if err != nil {
		return nil, err
	}
	if _, err := sv.Write(body); err != nil {
		return nil, err
	}
	if err := sv.Ensure(); err != nil {
		return nil, err
	}
	return body, nil
}

// serveEvent answers the URL check, and hands events to h: 200 once the
// event is handled, 500 when a message could not be stored so that Slack
// sends it again, 401 for a request Slack did not sign.
func (a *Adapter) serveEvent(w http.ResponseWriter, r *http.Request, h gateway.Handler) {
	body, err := a.verified(r)
	if err != nil {
		a.log.Warn("Events API request refused", "remote", r.RemoteAddr, "err", err)
		http.Error(w, "invalid signature", http.StatusUnauthorized)
		return
	}
	var outer struct {
		Type      string `json:"type"`
		Challenge string `json:"challenge"`
	}
	if err := json.Unmarshal(body, &outer); err != nil {
		http.Error(w, "not an event", http.StatusBadRequest)
		return
	}
	switch outer.Type {
	case slackevents.URLVerification:
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]string{"challenge": outer.Challenge})
		return
	case slackevents.CallbackEvent:
		if err := a.onEvent(r.Context(), h, body); err != nil {
			a.log.Warn("event not stored; Slack will deliver it again", "err", err)
			http.Error(w, "not stored", http.StatusInternalServerError)
			return
		}
	case slackevents.AppRateLimited:
		a.log.Warn("Slack is dropping events: the app exceeded its rate limit")
	}
	w.WriteHeader(http.StatusOK)
}

// serveInteraction hands a button press (a form with a JSON payload) to h.
func (a *Adapter) serveInteraction(w http.ResponseWriter, r *http.Request, h gateway.Handler) {
	body, err := a.verified(r)
	if err != nil {
		a.log.Warn("interactivity request refused", "remote", r.RemoteAddr, "err", err)
		http.Error(w, "invalid signature", http.StatusUnauthorized)
		return
	}
	form, err := url.ParseQuery(string(body))
	if err != nil || form.Get("payload") == "" {
		http.Error(w, "no payload", http.StatusBadRequest)
		return
	}
	a.onInteractive(r.Context(), h, json.RawMessage(form.Get("payload")))
	w.WriteHeader(http.StatusOK)
}
