package gateway

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// otherProcess makes other's rows look sent by another live process,
// as they are when the gateway and hermes cron daemon share a ledger:
// in one test process both stores would have the same pid.
func otherProcess(gateway, other *Store) {
	other.pid = gateway.pid + 1_000_000
	gateway.alive = func(pid int) bool { return pid == other.pid || processAlive(pid) }
}

// runOutbox starts an Outbox's own senders until the test ends.
func runOutbox(t *testing.T, ob *Outbox) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { ob.Run(ctx); close(done) }()
	t.Cleanup(func() { cancel(); <-done })
}

func TestOutboxDeliversToAChatAndToTheHomeChannel(t *testing.T) {
	clock := newStoreClock()
	st := openTestStore(t, filepath.Join(t.TempDir(), "gateway.db"), clock)
	a := &ledgerAdapter{clock: clock}
	ob := NewOutbox(st, []Adapter{a}, OutboxOptions{Home: map[string]string{"fake": "home1:7"}, After: clock.After})
	runOutbox(t, ob)
	ctx := context.Background()

	if err := ob.Deliver(ctx, "fake", "c1", "", "**Open PRs**: 3"); err != nil {
		t.Fatal(err)
	}
	if got := a.chat("c1"); len(got) != 1 || got[0].Text != "<b>Open PRs</b>: 3" {
		t.Fatalf("c1 got %+v, want the answer in the platform's markup", got)
	}
	// No chat: the configured home channel, with its thread.
	if err := ob.Deliver(ctx, "fake", "", "", "to home"); err != nil {
		t.Fatal(err)
	}
	rows, err := st.Deliveries(ctx, "fake", DeliveryDelivered)
	if err != nil {
		t.Fatal(err)
	}
	if last := rows[len(rows)-1]; last.Chat != (ChatRef{ChatID: "home1", ThreadID: "7"}) || last.Text != "to home" {
		t.Fatalf("the home delivery went to %+v", last)
	}
	// /sethome's choice wins over the configured one.
	if err := SetHome(ctx, st, "fake", ChatRef{ChatID: "h2"}); err != nil {
		t.Fatal(err)
	}
	if err := ob.Deliver(ctx, "fake", "", "", "to the new home"); err != nil {
		t.Fatal(err)
	}
	if got := callTexts(a.chat("h2")); len(got) != 1 || got[0] != "to the new home" {
		t.Fatalf("h2 got %q", got)
	}

	err = ob.Deliver(ctx, "slack", "C1", "", "x")
	if err == nil || !strings.Contains(err.Error(), "slack is not enabled") || !strings.Contains(err.Error(), "hermes gateway setup slack") {
		t.Fatalf("a platform not enabled: %v", err)
	}
	bare := NewOutbox(st, []Adapter{&ledgerAdapter{clock: clock}}, OutboxOptions{After: clock.After})
	if err := st.Set(ctx, homeKey("fake"), ""); err != nil {
		t.Fatal(err)
	}
	err = bare.Deliver(ctx, "fake", "", "", "x")
	if err == nil || !strings.Contains(err.Error(), "/sethome") || !strings.Contains(err.Error(), "gateway.platforms.fake.home_channel") {
		t.Fatalf("no home channel: %v", err)
	}
}

func TestOutboxSaysWhatWasNotDelivered(t *testing.T) {
	clock := newStoreClock()
	st := openTestStore(t, filepath.Join(t.TempDir(), "gateway.db"), clock)
	a := &ledgerAdapter{clock: clock, script: func(c ledgerCall, n int) error {
		switch c.Chat {
		case "blocked":
			return &SendError{Permanent: true, Status: 403, Err: errors.New("Forbidden: bot was blocked by the user")}
		case "busy":
			return &SendError{RetryAfter: time.Hour, Status: 429, Err: errors.New("Too Many Requests: retry after 3600")}
		}
		return nil
	}}
	ob := NewOutbox(st, []Adapter{a}, OutboxOptions{After: clock.After, Wait: 2 * time.Minute})
	runOutbox(t, ob)
	ctx := context.Background()

	err := ob.Deliver(ctx, "fake", "blocked", "", "report")
	if !errors.Is(err, ErrDeliveryFailed) || !strings.Contains(err.Error(), "blocked by the user") {
		t.Fatalf("a refusal for good: %v", err)
	}

	done := make(chan error, 1)
	go func() { done <- ob.Deliver(ctx, "fake", "busy", "", "report") }()
	// The rate limit holds the row an hour; Deliver gives up after Wait
	// and says the ledger keeps it.
	guard := time.Now().Add(10 * time.Second)
	for held := false; !held; {
		if time.Now().After(guard) {
			t.Fatal("the rate limit was not recorded")
		}
		rows, err := st.Deliveries(ctx, "fake", DeliveryPending)
		if err != nil {
			t.Fatal(err)
		}
		held = len(rows) == 1 && strings.Contains(rows[0].LastError, "Too Many Requests")
		if !held {
			time.Sleep(time.Millisecond) // the sender runs in another goroutine
		}
	}
	clock.Advance(2 * time.Minute)
	select {
	case err = <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("Deliver did not give up after its wait")
	}
	if err == nil || !strings.Contains(err.Error(), "not delivered within 2m0s") || !strings.Contains(err.Error(), "keeps trying") ||
		!strings.Contains(err.Error(), "Too Many Requests") {
		t.Fatalf("an undelivered message: %v", err)
	}
	rows, _ := st.Deliveries(ctx, "fake", DeliveryPending)
	if len(rows) != 1 || rows[0].Chat.ChatID != "busy" {
		t.Fatalf("the undelivered row is not owed in the ledger: %+v", rows)
	}
}

// An Outbox in another process than the gateway: its senders send only
// what it wrote, and what the gateway sends for it still ends its wait.
func TestOutboxBesideTheGatewaySharesTheLedger(t *testing.T) {
	clock := newStoreClock()
	path := filepath.Join(t.TempDir(), "gateway.db")
	gwStore := openTestStore(t, path, clock)
	cronStore := openTestStore(t, path, clock)
	otherProcess(gwStore, cronStore)
	ctx := context.Background()

	// A reply the gateway owes a chat, written while it was down.
	owed, err := gwStore.AddDelivery(ctx, Delivery{Platform: "fake", Chat: ChatRef{ChatID: "g1"}, Text: "owed reply"})
	if err != nil {
		t.Fatal(err)
	}
	cronSide := &ledgerAdapter{clock: clock}
	ob := NewOutbox(cronStore, []Adapter{cronSide}, OutboxOptions{After: clock.After, Poll: time.Second})
	runOutbox(t, ob)
	if err := ob.Deliver(ctx, "fake", "c1", "", "cron answer"); err != nil {
		t.Fatal(err)
	}
	if got := cronSide.chat("g1"); len(got) != 0 {
		t.Fatalf("the outbox sent a row it did not write: %+v", got)
	}
	if d, _ := gwStore.delivery(ctx, owed); d.State != DeliveryPending {
		t.Fatalf("the gateway's row is %s, want pending", d.State)
	}

	// An outbox whose senders do not run (its process is about to end):
	// the gateway's sender, polling, delivers its row and Deliver sees it.
	idle := NewOutbox(cronStore, []Adapter{&ledgerAdapter{clock: clock}}, OutboxOptions{After: clock.After, Poll: time.Second})
	gwSide := &ledgerAdapter{clock: clock}
	gwSender, _ := runSender(t, gwStore, gwSide, SenderOptions{After: clock.After, Poll: time.Second})
	done := make(chan error, 1)
	go func() { done <- idle.Deliver(ctx, "fake", "c2", "", "written by cron, sent by the gateway") }()
	deadline := time.After(10 * time.Second)
	for delivered := false; !delivered; {
		select {
		case err := <-done:
			if err != nil {
				t.Fatal(err)
			}
			delivered = true
		case <-deadline:
			t.Fatal("Deliver did not see the gateway deliver its row")
		case <-time.After(time.Millisecond):
			clock.Advance(time.Second)
		}
	}
	if got := callTexts(gwSide.chat("c2")); len(got) != 1 {
		t.Fatalf("the gateway sent c2 %q", got)
	}
	waitDelivered(t, gwSender, owed)
	if got := callTexts(gwSide.chat("g1")); len(got) != 1 || got[0] != "owed reply" {
		t.Fatalf("the gateway sent g1 %q", got)
	}
}

// Two senders on one ledger (the gateway's and an outbox's) never send
// one row twice.
func TestTwoSendersOnOneLedgerSendEachRowOnce(t *testing.T) {
	clock := newStoreClock()
	path := filepath.Join(t.TempDir(), "gateway.db")
	st1, st2 := openTestStore(t, path, clock), openTestStore(t, path, clock)
	otherProcess(st1, st2)
	a1, a2 := &ledgerAdapter{clock: clock}, &ledgerAdapter{clock: clock}
	ob := NewOutbox(st2, []Adapter{a2}, OutboxOptions{After: clock.After, Poll: time.Second, Wait: 1000 * time.Hour})
	runOutbox(t, ob)
	runSender(t, st1, a1, SenderOptions{After: clock.After, Poll: time.Second})
	const n = 40
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := range n {
		wg.Go(func() { errs <- ob.Deliver(context.Background(), "fake", "c"+string(rune('a'+i%8)), "", "part") })
	}
	stop := make(chan struct{})
	go func() {
		for {
			select {
			case <-stop:
				return
			case <-time.After(time.Millisecond):
				clock.Advance(time.Second)
			}
		}
	}()
	wg.Wait()
	close(stop)
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	if sent := len(a1.all()) + len(a2.all()); sent != n {
		t.Fatalf("%d sends for %d rows (gateway %d, outbox %d)", sent, n, len(a1.all()), len(a2.all()))
	}
}
