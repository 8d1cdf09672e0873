package gateway

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/hermes-go/hermes/config"
)

// DefaultOutboxWait is how long Outbox.Deliver waits for the platform by
// default.
const DefaultOutboxWait = 2 * time.Minute

// OutboxOptions configure an Outbox.
type OutboxOptions struct {
	// Home is each platform's configured home channel, "CHAT" or
	// "CHAT:THREAD" (gateway.platforms.<name>.home_channel); /sethome in a
	// chat overrides it.
	Home map[string]string
	// Wait bounds how long Deliver waits for the platform (default
	// DefaultOutboxWait). A message not delivered by then stays owed in
	// the ledger, which keeps trying it.
	Wait time.Duration
	// Poll is how often the Outbox's own senders read the ledger, and
	// Deliver the row it waits for (default 5 s): another process may
	// send it.
	Poll   time.Duration
	Logger *slog.Logger
	// After is the senders' timer (nil: time.After).
	After func(time.Duration) <-chan time.Time
}

// Outbox delivers messages that answer no chat, a cron job's answer or
// a webhook run's, to a platform's chat through the delivery ledger:
// each part is a row written before it is sent, so nothing is lost when
// the platform refuses or the process dies; the ledger goes on trying.
//
// The gateway's Outbox (Gateway.Outbox) sends through the gateway's own
// senders. NewOutbox makes one for a process that runs beside the
// gateway, or without it (hermes cron daemon): its senders deliver only
// the rows it wrote, and leave the rows of a crash to the gateway's
// recovery; what they have not delivered when the process ends, the
// gateway sends when it runs.
type Outbox struct {
	store   *Store
	senders map[string]*Sender
	limits  map[string]Limits
	o       OutboxOptions
	own     bool
}

// NewOutbox returns an Outbox delivering through adapters (made only to
// send: their Run is never called). Run its senders with Run.
func NewOutbox(store *Store, adapters []Adapter, o OutboxOptions) *Outbox {
	o = outboxDefaults(o)
	ob := &Outbox{store: store, senders: map[string]*Sender{}, limits: map[string]Limits{}, o: o, own: true}
	for _, a := range adapters {
		p := a.Platform()
		ob.senders[p] = NewSender(store, a, SenderOptions{Logger: o.Logger, After: o.After, Plain: plainOf(a.Limits().Format), Poll: o.Poll, Own: true})
		ob.limits[p] = a.Limits()
	}
	return ob
}

// Outbox returns an Outbox that sends through the gateway's senders,
// which Run runs.
func (g *Gateway) Outbox(o OutboxOptions) *Outbox {
	o = outboxDefaults(o)
	ob := &Outbox{store: g.store, senders: g.senders, limits: map[string]Limits{}, o: o}
	for p, a := range g.adapters {
		ob.limits[p] = a.Limits()
	}
	return ob
}

func outboxDefaults(o OutboxOptions) OutboxOptions {
	o.Wait = cmp.Or(o.Wait, DefaultOutboxWait)
	o.Poll = cmp.Or(o.Poll, 5*time.Second)
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.After == nil {
		o.After = time.After
	}
	return o
}

// Run runs the senders of an Outbox made by NewOutbox until ctx ends
// (the sends in flight finish first). The gateway's Outbox has nothing to
// run: it returns at once.
func (ob *Outbox) Run(ctx context.Context) error {
	if !ob.own {
		return nil
	}
	var wg sync.WaitGroup
	for _, s := range ob.senders {
		wg.Go(func() { s.Run(ctx) })
	}
	wg.Wait()
	return nil
}

// Deliver sends text (markdown, cut into the platform's messages in its
// markup) to chat on platform, in thread when set; an empty chat means
// the platform's home channel. It returns once every part is delivered.
// An error says what went wrong: a platform not enabled, no home
// channel, a refusal for good, or a delivery still owed after Wait, which
// the ledger keeps trying.
func (ob *Outbox) Deliver(ctx context.Context, platform, chat, thread, text string) error {
	s, ok := ob.senders[platform]
	if !ok {
		return fmt.Errorf("%s is not enabled: set it up with `hermes gateway setup %s` (gateway.platforms.%s in config.yaml)", platform, platform, platform)
	}
	if chat == "" {
		var err error
		if chat, thread, err = ob.Home(ctx, platform); err != nil {
			return err
		}
	}
	ref := ChatRef{ChatID: chat, ThreadID: thread}
	// The bound is a timer of After, not a deadline: tests drive it with
	// the senders' clock.
	wait, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		select {
		case <-ob.o.After(ob.o.Wait):
			cancel()
		case <-wait.Done():
		}
	}()
	for _, part := range renderParts(ob.limits[platform], text) {
		id, err := s.Add(ctx, Delivery{Chat: ref, Text: part})
		if err != nil {
			return fmt.Errorf("%s %s: writing the delivery ledger: %w", platform, chat, err)
		}
		d, err := s.Wait(wait, id)
		switch {
		case err == nil:
		case errors.Is(err, ErrDeliveryFailed):
			return fmt.Errorf("%s %s: %w", platform, chat, err)
		case ctx.Err() == nil && wait.Err() != nil:
			if now, err := ob.store.delivery(ctx, id); err == nil {
				d = now
			}
			why := ""
			if d.LastError != "" {
				why = " (last error: " + d.LastError + ")"
			}
			return fmt.Errorf("%s %s: not delivered within %s%s; the delivery ledger keeps trying it (delivery %d)", platform, chat, ob.o.Wait, why, id)
		default:
			return fmt.Errorf("%s %s: delivery %d: %w", platform, chat, id, err)
		}
	}
	return nil
}

// homeKey is the store key /sethome writes a platform's home channel to.
func homeKey(platform string) string { return "home:" + platform }

// Home returns a platform's home channel: the chat /sethome chose, else
// the configured one.
func (ob *Outbox) Home(ctx context.Context, platform string) (chat, thread string, err error) {
	v, ok, err := ob.store.Get(ctx, homeKey(platform))
	if err != nil {
		return "", "", fmt.Errorf("%s: reading its home channel: %w", platform, err)
	}
	if !ok {
		v = ob.o.Home[platform]
	}
	if v = strings.TrimSpace(v); v == "" {
		return "", "", fmt.Errorf("%s has no home channel: send /sethome in the chat that should get these messages, or set gateway.platforms.%s.home_channel", platform, platform)
	}
	chat, thread = config.SplitChat(platform, v)
	return chat, thread, nil
}

// SetHome makes chat the platform's home channel.
func SetHome(ctx context.Context, kv KV, platform string, chat ChatRef) error {
	v := chat.ChatID
	if chat.ThreadID != "" {
		v += ":" + chat.ThreadID
	}
	return kv.Set(ctx, homeKey(platform), v)
}
