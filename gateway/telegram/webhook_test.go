package telegram_test

import (
	"net"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/hermes-go/hermes/gateway"
	"github.com/hermes-go/hermes/gateway/telegram/telegramtest"
)

func TestWebhookTakesUpdatesWithTheSecretAndRefusesOthers(t *testing.T) {
	srv := telegramtest.NewServer(t, telegramtest.Options{})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	hookURL := "http://" + ln.Addr().String() + "/telegram/hook"
	h := newHandler()
	var refusals atomic.Int32
	h.fail = func(m gateway.Inbound) error {
		if m.Text == "refused once" && refusals.Add(1) == 1 {
			return errTest
		}
		return nil
	}
	o := options(srv)
	o.WebhookURL = hookURL
	o.WebhookListener = ln
	start(t, o, h)
	h.waitConnected(t)

	url, secret := srv.Webhook()
	if url != hookURL || len(secret) < 16 {
		t.Fatalf("webhook %q with secret %q, want %q with a secret", url, secret, hookURL)
	}
	if n := len(srv.Calls("getUpdates", "deleteWebhook")); n != 0 {
		t.Errorf("%d getUpdates/deleteWebhook calls in webhook mode, want none", n)
	}

	// A post without the secret is refused and never reaches the gateway.
	forged := `{"update_id":1,"message":{"message_id":1,"date":1,"chat":{"id":1001,"type":"private"},"from":{"id":1001,"is_bot":false,"first_name":"Mallory"},"text":"forged"}}`
	for _, header := range []string{"", "wrong-secret"} {
		req, _ := http.NewRequest(http.MethodPost, hookURL, strings.NewReader(forged))
		if header != "" {
			req.Header.Set("X-Telegram-Bot-Api-Secret-Token", header)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusForbidden {
			t.Errorf("post with secret %q answered %s, want 403", header, resp.Status)
		}
	}

	dm := srv.DM(alice)
	srv.SendText(alice, dm, "refused once")
	srv.SendText(alice, dm, "hello via webhook")
	got := h.waitMessages(t, 2)
	if got[0].Text != "refused once" || got[1].Text != "hello via webhook" || got[0].UserID != "1001" {
		t.Errorf("handler took %+v, want alice's two messages in order", got)
	}
	if !srv.WaitFor(wait, func() bool { return srv.Pending() == 0 }) {
		t.Errorf("%d updates left unconfirmed", srv.Pending())
	}
	if refusals.Load() != 2 {
		t.Errorf("the refused update was posted %d times, want 2", refusals.Load())
	}
	for _, m := range h.Messages() {
		if m.Text == "forged" {
			t.Error("the forged post reached the gateway")
		}
	}
}
