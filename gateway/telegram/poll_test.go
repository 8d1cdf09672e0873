package telegram_test

import (
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hermes-go/hermes/gateway"
	"github.com/hermes-go/hermes/gateway/telegram/telegramtest"
)

func offsetKey(srv *telegramtest.Server) string {
	return fmt.Sprintf("telegram:%d:offset", srv.Bot().ID)
}

func TestUpdateIsConfirmedOnlyAfterTheHandlerTookIt(t *testing.T) {
	srv := telegramtest.NewServer(t, telegramtest.Options{})
	kv := newKV()
	h := newHandler()
	var refusals atomic.Int32
	h.fail = func(m gateway.Inbound) error {
		if m.Text == "first" && refusals.Add(1) == 1 {
			return errors.New("store is busy")
		}
		return nil
	}
	o := options(srv)
	o.KV = kv
	start(t, o, h)
	dm := srv.DM(alice)
	first := srv.SendText(alice, dm, "first")
	second := srv.SendText(alice, dm, "second")

	got := h.waitMessages(t, 2)
	if got[0].Text != "first" || got[1].Text != "second" || len(got) != 2 {
		t.Fatalf("handler took %+v, want first then second once each", got)
	}
	if refusals.Load() != 2 {
		t.Errorf("the refused update was offered %d times, want 2 (refused, then taken)", refusals.Load())
	}
	if n := srv.Delivered(first.UpdateID); n != 2 {
		t.Errorf("Telegram handed out the refused update %d times, want 2: it was not confirmed", n)
	}
	if !srv.WaitFor(wait, func() bool { return srv.Pending() == 0 }) {
		t.Errorf("%d updates left unconfirmed", srv.Pending())
	}
	if got, want := kv.get(offsetKey(srv)), fmt.Sprint(second.UpdateID+1); got != want {
		t.Errorf("stored offset %q, want %q", got, want)
	}
}

func TestNewAdapterResumesFromTheStoredOffset(t *testing.T) {
	srv := telegramtest.NewServer(t, telegramtest.Options{})
	kv := newKV()
	dm := srv.DM(alice)

	// The first process takes "one" and "two" and stops right after
	// "two", before its next getUpdates could confirm it to Telegram.
	h1 := newHandler()
	o := options(srv)
	o.KV = kv
	first := start(t, o, h1)
	h1.onTaken = func(m gateway.Inbound) {
		if m.Text == "two" {
			first.cancel()
		}
	}
	one := srv.SendText(alice, dm, "one")
	two := srv.SendText(alice, dm, "two")
	h1.waitMessages(t, 2)
	if err := first.stop(t); err != nil {
		t.Fatalf("Run returned %v", err)
	}
	if srv.Pending() == 0 {
		t.Fatal("Telegram holds no unconfirmed update: two was confirmed before the stop")
	}
	three := srv.SendText(alice, dm, "three") // sent while nothing runs

	h2 := newHandler()
	start(t, o, h2)
	got := h2.waitMessages(t, 1)
	if !srv.WaitFor(wait, func() bool { return srv.Pending() == 0 }) {
		t.Fatalf("%d updates left unconfirmed", srv.Pending())
	}
	if got = h2.Messages(); len(got) != 1 || got[0].Text != "three" {
		t.Errorf("the new process took %+v, want only three", got)
	}
	for _, m := range []telegramtest.Message{one, two, three} {
		if n := srv.Delivered(m.UpdateID); n != 1 {
			t.Errorf("%q handed out %d times, want once", m.Text, n)
		}
	}
}

func TestConflictIsReportedAsNotConnectedUntilItEnds(t *testing.T) {
	srv := telegramtest.NewServer(t, telegramtest.Options{})
	srv.StartConflict()
	h := newHandler()
	start(t, options(srv), h)
	const reason = "409 conflict: another getUpdates is running with this token"
	h.waitFor(t, "the conflict reported", func() bool { return h.lastState().Detail == reason })
	// Retried with backoff, never connected meanwhile.
	if !srv.WaitFor(wait, func() bool { return len(srv.Calls("getUpdates")) >= 3 }) {
		t.Fatal("getUpdates not retried")
	}
	for _, s := range h.States() {
		if s.Connected {
			t.Fatalf("reported connected during the conflict: %+v", h.States())
		}
	}
	srv.EndConflict()
	// The quick getUpdates after the conflict succeeds empty; that alone
	// does not prove the other poller gone.
	if !srv.WaitFor(wait, srv.Polling) {
		t.Fatal("no long poll after the conflict ended")
	}
	if s := h.lastState(); s.Connected {
		t.Errorf("connected on an empty quick answer right after a conflict: %+v", s)
	}
	dm := srv.DM(alice)
	srv.SendText(alice, dm, "after the conflict")
	if got := h.waitMessages(t, 1); got[0].Text != "after the conflict" {
		t.Errorf("got %q", got[0].Text)
	}
	h.waitConnected(t)
}

func TestSecondPollerWithTheSameTokenGetsTheConflict(t *testing.T) {
	srv := telegramtest.NewServer(t, telegramtest.Options{})
	h1, h2 := newHandler(), newHandler()
	first := start(t, options(srv), h1)
	h1.waitConnected(t)
	if !srv.WaitFor(wait, srv.Polling) {
		t.Fatal("the first adapter is not long-polling")
	}
	start(t, options(srv), h2)
	h2.waitFor(t, "the conflict reported", func() bool {
		return strings.HasPrefix(h2.lastState().Detail, "409 conflict")
	})
	if err := first.stop(t); err != nil {
		t.Fatal(err)
	}
	srv.SendText(alice, srv.DM(alice), "to whoever polls")
	if got := h2.waitMessages(t, 1); got[0].Text != "to whoever polls" {
		t.Errorf("got %q", got[0].Text)
	}
	h2.waitConnected(t)
	if s := h1.lastState(); s.Connected || s.Detail != "stopped" {
		t.Errorf("stopped adapter's last state %+v, want not connected, stopped", s)
	}
}

func TestDroppedConnectionReconnectsWithoutLosingOrRepeating(t *testing.T) {
	srv := telegramtest.NewServer(t, telegramtest.Options{})
	h := newHandler()
	start(t, options(srv), h)
	dm := srv.DM(alice)
	before := srv.SendText(alice, dm, "before")
	h.waitMessages(t, 1)
	if !srv.WaitFor(wait, srv.Polling) {
		t.Fatal("not long-polling")
	}

	srv.SetDown(true)
	srv.DropPolls()
	h.waitFor(t, "the drop reported", func() bool {
		s := h.lastState()
		return !s.Connected && strings.HasPrefix(s.Detail, "cannot reach the Bot API")
	})
	during := srv.SendText(alice, dm, "during")
	srv.SetDown(false)
	h.waitConnected(t)
	after := srv.SendText(alice, dm, "after")

	got := h.waitMessages(t, 3)
	if !srv.WaitFor(wait, func() bool { return srv.Pending() == 0 }) {
		t.Fatalf("%d updates left unconfirmed", srv.Pending())
	}
	got = h.Messages()
	var texts []string
	for _, m := range got {
		texts = append(texts, m.Text)
	}
	if strings.Join(texts, ",") != "before,during,after" {
		t.Errorf("handler took %v, want before,during,after once each", texts)
	}
	for _, m := range []telegramtest.Message{before, during, after} {
		if n := srv.Delivered(m.UpdateID); n != 1 {
			t.Errorf("%q handed out %d times, want once", m.Text, n)
		}
	}
}

func TestRefusedTokenEndsRun(t *testing.T) {
	srv := telegramtest.NewServer(t, telegramtest.Options{})
	h := newHandler()
	o := options(srv)
	o.Token = "1:wrong"
	r := start(t, o, h)
	select {
	case <-r.done:
		if err := r.err; err == nil || !strings.Contains(err.Error(), "refused the token") {
			t.Errorf("Run returned %v, want the refused token", err)
		}
	case <-time.After(wait):
		t.Fatal("Run did not return")
	}
	if s := h.lastState(); s.Connected || !strings.HasPrefix(s.Detail, "401 unauthorized") {
		t.Errorf("state %+v, want not connected: 401", s)
	}
}

func TestPollingDeletesAWebhookLeftBehind(t *testing.T) {
	srv := telegramtest.NewServer(t, telegramtest.Options{})
	setWebhook(t, srv, "http://127.0.0.1:1/gone", "old-secret")
	h := newHandler()
	start(t, options(srv), h)
	dm := srv.DM(alice)
	srv.SendText(alice, dm, "reaches the poller")
	if got := h.waitMessages(t, 1); got[0].Text != "reaches the poller" {
		t.Errorf("got %q", got[0].Text)
	}
	calls := srv.Calls("deleteWebhook", "getUpdates")
	if len(calls) == 0 || calls[0].Method != "deleteWebhook" {
		t.Errorf("first calls %v, want deleteWebhook before getUpdates", calls)
	}
}
