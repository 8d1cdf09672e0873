package mattermost

import (
	"context"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/hermes-go/hermes/gateway"
)

// actionRequest is what the server posts to an integration URL when a
// person presses a button.
type actionRequest struct {
	UserID    string `json:"user_id"`
	ChannelID string `json:"channel_id"`
	PostID    string `json:"post_id"`
	Context   struct {
		Data   string `json:"data"`
		Root   string `json:"root"`
		Secret string `json:"secret"`
	} `json:"context"`
}

// serveActions opens the button endpoint and serves it until the
// returned stop is called.
func (a *Adapter) serveActions(ctx context.Context, h gateway.Handler) (stop func(), err error) {
	ln := a.o.ActionsListener
	if ln == nil {
		if ln, err = net.Listen("tcp", a.o.ActionsListen); err != nil {
			return nil, fmt.Errorf("mattermost: listening for button presses on %s: %w", a.o.ActionsListen, err)
		}
	}
	a.mu.Lock()
	a.actionsURL = a.o.ActionsURL
	if a.actionsURL == "" { // a free port is another on each Run
		a.actionsURL = "http://" + ln.Addr().String() + ActionsPath
	}
	a.mu.Unlock()
	mux := http.NewServeMux()
	mux.HandleFunc("POST "+ActionsPath, func(w http.ResponseWriter, r *http.Request) { a.serveAction(ctx, w, r, h) })
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() {
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			a.log.Error("the button endpoint stopped; buttons no longer work", "err", err)
		}
	}()
	return func() {
		shutdown, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(shutdown)
	}, nil
}

// serveAction turns a press into a Click. Only requests carrying the
// run's secret (in the context the server kept with the button) are
// handled; the others are answered 403 and change nothing. The answer
// to the presser goes back as the response's ephemeral_text, or, when
// it comes after ClickWait, as an ephemeral post. The post itself is
// left as it is: the gateway edits it when it should change.
func (a *Adapter) serveAction(ctx context.Context, w http.ResponseWriter, r *http.Request, h gateway.Handler) {
	var req actionRequest
	if err := json.NewDecoder(io.LimitReader(r.Body, 1<<16)).Decode(&req); err != nil {
		http.Error(w, "not an action request", http.StatusBadRequest)
		return
	}
	if subtle.ConstantTimeCompare([]byte(req.Context.Secret), []byte(a.secret)) != 1 {
		a.log.Warn("a button press without this run's secret refused", "remote", r.RemoteAddr, "post", req.PostID)
		http.Error(w, "unknown button", http.StatusForbidden)
		return
	}
	if req.UserID == "" {
		http.Error(w, "no user", http.StatusBadRequest)
		return
	}
	chat := gateway.ChatRef{ChatID: req.ChannelID, ThreadID: req.Context.Root}
	var (
		mu        sync.Mutex
		responded bool
		answered  bool
		answer    = make(chan string, 1)
	)
	answerFn := func(actx context.Context, text string) error {
		mu.Lock()
		if answered {
			mu.Unlock()
			return errors.New("mattermost: the click was already answered")
		}
		answered = true
		if !responded {
			answer <- text
			mu.Unlock()
			return nil
		}
		mu.Unlock()
		if err := a.postEphemeral(actx, chat, req.UserID, text); err != nil {
			mu.Lock()
			answered = false
			mu.Unlock()
			return err
		}
		return nil
	}
	h.Click(ctx, gateway.Click{
		Platform: a.Platform(), Chat: chat, MessageID: req.PostID, UserID: req.UserID, Data: req.Context.Data, Answer: answerFn,
	})
	var text string
	got := false
	t := time.NewTimer(a.o.ClickWait)
	defer t.Stop()
	select {
	case text = <-answer:
		got = true
	case <-t.C:
	case <-r.Context().Done():
	}
	mu.Lock()
	responded = true
	if !got {
		select {
		case text = <-answer:
			got = true
		default:
		}
	}
	mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	resp := map[string]any{}
	if got {
		resp["ephemeral_text"] = escape(text)
	}
	_ = json.NewEncoder(w).Encode(resp)
}

// postEphemeral shows text to one person only (POST /posts/ephemeral).
func (a *Adapter) postEphemeral(ctx context.Context, chat gateway.ChatRef, user, text string) error {
	body := map[string]any{"user_id": user, "post": outPost{ChannelID: chat.ChatID, RootID: chat.ThreadID, Message: escape(text)}}
	return a.call(ctx, http.MethodPost, "/api/v4/posts/ephemeral", body, nil)
}
