package telegram

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"time"

	"github.com/go-telegram/bot"
	"github.com/go-telegram/bot/models"
)

// secretHeader carries the webhook's secret token in Telegram's posts.
const secretHeader = "X-Telegram-Bot-Api-Secret-Token"

// serveWebhook listens for Telegram's posts and registers the webhook
// (setWebhook with the secret, retried until Telegram takes it). A post
// without the secret is refused (403) and read no further; an update
// the handler did not take is answered 500, so Telegram posts it again.
// Telegram is asked for one connection at a time, so updates arrive in
// order.
func (r *run) serveWebhook(ctx context.Context) error {
	ln := r.a.o.WebhookListener
	if ln == nil {
		var err error
		if ln, err = net.Listen("tcp", r.a.o.WebhookListen); err != nil {
			r.report(false, "webhook cannot listen: "+err.Error())
			return fmt.Errorf("telegram webhook: %w", err)
		}
	}
	secret := r.a.o.WebhookSecret
	if secret == "" {
		secret = rand.Text() // base32: within Telegram's alphabet
	}
	path := r.a.webhook.EscapedPath()
	if path == "" {
		path = "/"
	}
	srv := &http.Server{Handler: r.webhookHandler(path, secret), ReadHeaderTimeout: 10 * time.Second, BaseContext: func(net.Listener) context.Context { return ctx }}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	defer func() {
		shut, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
		defer cancel()
		_ = srv.Shutdown(shut)
	}()

	b := r.backoff()
	for {
		_, err := r.a.bot.SetWebhook(ctx, &bot.SetWebhookParams{
			URL: r.a.o.WebhookURL, SecretToken: secret, AllowedUpdates: allowedUpdates, MaxConnections: 1,
		})
		if err == nil {
			break
		}
		switch {
		case ctx.Err() != nil:
			return nil
		case refused(err):
			r.report(false, describe(err))
			return fmt.Errorf("telegram: the Bot API refused the token: %w", err)
		}
		r.a.log.Warn("telegram setWebhook failed", "err", err)
		r.report(false, "setWebhook failed: "+describe(err))
		if !b.Wait(ctx, retryAfter(err)) {
			return nil
		}
	}
	r.report(true, r.username())
	select {
	case <-ctx.Done():
		return nil
	case err := <-served:
		r.report(false, "webhook server stopped: "+err.Error())
		return fmt.Errorf("telegram webhook: %w", err)
	}
}

func (r *run) webhookHandler(path, secret string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if req.URL.EscapedPath() != path {
			http.NotFound(w, req)
			return
		}
		if req.Method != http.MethodPost {
			http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
			return
		}
		if subtle.ConstantTimeCompare([]byte(req.Header.Get(secretHeader)), []byte(secret)) != 1 {
			r.a.log.Warn("telegram webhook: post without the secret token refused", "remote", req.RemoteAddr)
			http.Error(w, "forbidden", http.StatusForbidden)
			return
		}
		var u models.Update
		if err := json.NewDecoder(io.LimitReader(req.Body, 16<<20)).Decode(&u); err != nil {
			http.Error(w, "not an update", http.StatusBadRequest)
			return
		}
		if err := r.handle(req.Context(), &u); err != nil {
			r.a.log.Error("telegram update not taken; Telegram will post it again", "update_id", u.ID, "err", err)
			http.Error(w, "not taken", http.StatusInternalServerError)
			return
		}
		w.WriteHeader(http.StatusOK)
	})
}
