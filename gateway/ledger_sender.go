package gateway

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"
)

// RecoveredMark is what a person sees before a reply that a crash caught
// mid-send: the gateway cannot know whether the platform received it the
// first time, so it sends it again, once, saying so. A recovered file's
// caption carries it too; a recovered edit does not (editing a message to
// the same text twice shows nothing twice).
const RecoveredMark = "(recovered) "

// ErrDeliveryFailed is what Wait returns, wrapped with the row's last
// error, for a reply the ledger gave up on.
var ErrDeliveryFailed = errors.New("delivery failed")

// SenderOptions tune a Sender. The zero value is ready to use.
type SenderOptions struct {
	// Logger receives every failure, retry and recovery (nil: discard).
	Logger *slog.Logger
	// After is the timer the Sender waits on for a row's NotBefore (nil:
	// time.After). Tests pair it with the Store's clock.
	After func(time.Duration) <-chan time.Time
	// Backoff is the wait after a row's first transport failure, doubled
	// after each next one. Default 2s.
	Backoff time.Duration
	// MaxAttempts is how many times a row is tried before a transport
	// failure fails it. Default 3.
	MaxAttempts int
	// Stale is the age past which an unsent row is failed instead of
	// sent: a reply a day late answers nothing. Default 24h.
	Stale time.Duration
	// Workers bounds the sends in flight at once (one per chat at most).
	// Default 4.
	Workers int
	// SendTimeout bounds one call to the platform. Default 2m.
	SendTimeout time.Duration
	// Plain turns a row's text into plain text when the platform refuses
	// its formatting (nil: the text is resent as it is, unformatted).
	Plain func(text string) string
	// Poll, when set, makes Run read the ledger at least this often and
	// Wait read its row as often: rows written, or delivered, by another
	// process (hermes cron daemon beside hermes gateway) are seen.
	Poll time.Duration
	// Own limits the Sender to the rows its Add wrote, and leaves the
	// recovery of rows left in sending to the gateway: the sender of a
	// process that delivers beside the gateway, not for it.
	Own bool
}

// Sender delivers one platform's rows of the ledger, in order per chat.
//
// A row is marked sending (committed) before the adapter is called and
// delivered, with the platform's message id, after. At start, Run finds
// the rows left in sending by a crash: they go back to pending marked
// Recovered and are sent once more with RecoveredMark before their text;
// unsent rows older than Stale (a day) are failed as stale instead. A row
// another live process is sending is left to it; with Poll, the rows of
// a process that died meanwhile are recovered while Run runs.
//
// Outcomes: a rate limit (SendError.RetryAfter) holds the row and every
// later row to the same chat until it has passed (NotBefore), while other
// chats go on; a refusal for good (Permanent) fails the row, never
// retried; a refused formatting (Format) is sent again once as plain
// text; an edit that changes nothing (NotModified) is delivered; any
// other error is retried with doubling backoff, and fails the row after
// MaxAttempts tries. Every wait is a timer in Run's loop, never a
// sleeping goroutine. A later row to a chat is never handed to the
// platform before an earlier one to it is delivered or failed. Every
// failure is logged and stays in Deliveries, with its error, for seven
// days.
//
// Add, Notify and Wait may be called from any goroutine; Run once.
type Sender struct {
	store    *Store
	a        Adapter
	platform string
	o        SenderOptions
	log      *slog.Logger

	notify chan struct{}

	mu      sync.Mutex
	waiters map[int64][]chan struct{}
	owned   map[int64]bool // with Own: the rows Add wrote and not yet finished
}

// NewSender returns the Sender of a's rows of the ledger in store.
func NewSender(store *Store, a Adapter, opts SenderOptions) *Sender {
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.After == nil {
		opts.After = time.After
	}
	if opts.Backoff <= 0 {
		opts.Backoff = 2 * time.Second
	}
	if opts.MaxAttempts <= 0 {
		opts.MaxAttempts = 3
	}
	if opts.Stale <= 0 {
		opts.Stale = 24 * time.Hour
	}
	if opts.Workers <= 0 {
		opts.Workers = 4
	}
	if opts.SendTimeout <= 0 {
		opts.SendTimeout = 2 * time.Minute
	}
	return &Sender{
		store: store, a: a, platform: a.Platform(), o: opts,
		log:     opts.Logger.With("platform", a.Platform()),
		notify:  make(chan struct{}, 1),
		waiters: map[int64][]chan struct{}{},
		owned:   map[int64]bool{},
	}
}

// Add writes d to the ledger (its Platform defaults to the Sender's) and
// wakes the Sender; the reply is owed from the moment Add returns.
func (s *Sender) Add(ctx context.Context, d Delivery) (int64, error) {
	if d.Platform == "" {
		d.Platform = s.platform
	}
	if d.Platform != s.platform {
		return 0, fmt.Errorf("gateway: the %s sender cannot deliver to %s", s.platform, d.Platform)
	}
	id, err := s.store.AddDelivery(ctx, d)
	if err != nil {
		return 0, err
	}
	if s.o.Own {
		s.mu.Lock()
		s.owned[id] = true
		s.mu.Unlock()
	}
	s.Notify()
	return id, nil
}

// Notify tells the Sender that a row is due (one written by
// Store.AddDelivery directly). It never blocks.
func (s *Sender) Notify() {
	select {
	case s.notify <- struct{}{}:
	default:
	}
}

// Wait returns the row once it is delivered or failed (then with an error
// wrapping ErrDeliveryFailed), or when ctx ends.
func (s *Sender) Wait(ctx context.Context, id int64) (Delivery, error) {
	ch := make(chan struct{}, 1)
	s.mu.Lock()
	s.waiters[id] = append(s.waiters[id], ch)
	s.mu.Unlock()
	defer s.unwait(id, ch)
	for {
		// Registered before reading: an outcome written after the read
		// signals ch.
		d, err := s.store.delivery(ctx, id)
		switch {
		case err != nil:
			return d, err
		case d.State == DeliveryDelivered:
			s.disown(id)
			return d, nil
		case d.State == DeliveryFailed:
			s.disown(id)
			return d, fmt.Errorf("delivery %d to %s %s: %w: %s", id, d.Platform, d.Chat.ChatID, ErrDeliveryFailed, d.LastError)
		}
		var poll <-chan time.Time
		if s.o.Poll > 0 {
			poll = s.o.After(s.o.Poll)
		}
		select {
		case <-ch:
		case <-poll:
		case <-ctx.Done():
			return d, ctx.Err()
		}
	}
}

func (s *Sender) unwait(id int64, ch chan struct{}) {
	s.mu.Lock()
	defer s.mu.Unlock()
	list := s.waiters[id]
	for i, c := range list {
		if c == ch {
			list = append(list[:i], list[i+1:]...)
			break
		}
	}
	if len(list) == 0 {
		delete(s.waiters, id)
	} else {
		s.waiters[id] = list
	}
}

// finished wakes the callers waiting for row id.
func (s *Sender) finished(id int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.owned, id)
	for _, ch := range s.waiters[id] {
		select {
		case ch <- struct{}{}:
		default:
		}
	}
}

// Run sends the platform's rows until ctx ends, then waits for the sends
// in flight (each bounded by SendTimeout) and returns nil. It returns an
// error only when the ledger cannot be read at start.
func (s *Sender) Run(ctx context.Context) error {
	if !s.o.Own {
		if err := s.recover(ctx, true); err != nil {
			return err
		}
	}
	var recovered time.Time // the last look for rows a dead process left in sending
	// Sends in flight finish and record their outcome even after ctx
	// ends: cutting one short would leave a row whose fate is unknown.
	base := context.WithoutCancel(ctx)
	busy := map[string]bool{} // chats with a send in flight
	done := make(chan string)
	for {
		// With Poll, rows another process died sending are taken up
		// while the gateway runs, not only at its next start.
		if now := s.store.now(); !s.o.Own && s.o.Poll > 0 && now.Sub(recovered) >= s.o.Poll {
			recovered = now
			if err := s.recover(ctx, false); err != nil && ctx.Err() == nil {
				s.log.Error("delivery ledger: looking for rows left in sending", "err", err)
			}
		}
		wake, err := s.dispatch(ctx, base, busy, done)
		if err != nil && ctx.Err() == nil { // a read cut short by the stop is no failure
			s.log.Error("delivery ledger unreadable; trying again", "err", err, "in", s.o.Backoff)
			wake = s.store.now().Add(s.o.Backoff)
		}
		if poll := s.store.now().Add(s.o.Poll); s.o.Poll > 0 && (wake.IsZero() || poll.Before(wake)) {
			wake = poll
		}
		var timer <-chan time.Time
		if !wake.IsZero() {
			timer = s.o.After(wake.Sub(s.store.now()))
		}
		select {
		case <-ctx.Done():
			for len(busy) > 0 {
				delete(busy, <-done)
			}
			return nil
		case chat := <-done:
			delete(busy, chat)
		case <-s.notify:
		case <-timer:
		}
	}
}

// recover makes the rows a dead process (at start: this one's previous
// run too) left in sending pending again, marked recovered, and fails the
// stale ones.
func (s *Sender) recover(ctx context.Context, atStart bool) error {
	rows, err := s.store.recoverDeliveries(ctx, s.platform, s.o.Stale, atStart)
	if err != nil {
		return err
	}
	for _, d := range rows {
		if d.State == DeliveryFailed {
			s.log.Error("reply not delivered: stale", "delivery", d.ID, "chat", d.Chat.ChatID, "created", d.Created, "err", d.LastError)
			s.finished(d.ID)
			continue
		}
		s.log.Warn("reply caught mid-send by a restart: sending it again, marked recovered", "delivery", d.ID, "chat", d.Chat.ChatID)
	}
	return nil
}

// dispatch hands every due row whose chat has nothing in flight and no
// earlier row waiting to a worker, and returns when the next waiting row
// is due (zero: none waits).
func (s *Sender) dispatch(ctx, base context.Context, busy map[string]bool, done chan<- string) (wake time.Time, err error) {
	if err := s.store.pruneIfDue(ctx); err != nil {
		s.log.Warn("pruning the delivery ledger", "err", err)
	}
	now := s.store.now()
	held := map[string]bool{} // chats whose first pending row was seen
	// Pages of the oldest pending rows, read until every worker is busy:
	// a backlog of thousands of replies costs a page per pass, not all of
	// it.
	const page = 64
	var after int64
	for {
		rows, err := s.store.dueDeliveries(ctx, s.platform, after, page)
		if err != nil {
			return time.Time{}, err
		}
		for _, d := range rows {
			after = d.ID
			chat := d.Chat.ChatID
			if busy[chat] || held[chat] || !s.mine(d.ID) {
				continue
			}
			if now.Sub(d.Created) > s.o.Stale {
				why := fmt.Sprintf("stale: not delivered within %s of being written", staleAge(s.o.Stale))
				if err := s.store.markFailed(ctx, d.ID, why); err != nil {
					return time.Time{}, err
				}
				s.log.Error("reply not delivered: stale", "delivery", d.ID, "chat", chat, "created", d.Created, "last_err", d.LastError)
				s.finished(d.ID)
				continue
			}
			held[chat] = true
			if d.NotBefore.After(now) {
				if wake.IsZero() || d.NotBefore.Before(wake) {
					wake = d.NotBefore
				}
				continue
			}
			if len(busy) >= s.o.Workers {
				return wake, nil // a worker's end starts the next pass
			}
			if err := s.store.markSending(ctx, d.ID); errors.Is(err, ErrDeliveryNotFound) {
				continue // another process's Sender took it since the read
			} else if err != nil {
				return time.Time{}, err
			}
			d.State, d.Attempts = DeliverySending, d.Attempts+1
			busy[chat] = true
			go func() {
				s.attempt(base, d)
				done <- chat
			}()
		}
		if len(rows) < page {
			break
		}
	}
	return wake, nil
}

// disown forgets a finished row another process's Sender delivered.
func (s *Sender) disown(id int64) {
	s.mu.Lock()
	delete(s.owned, id)
	s.mu.Unlock()
}

// mine reports whether the Sender delivers row id: any row, or with Own
// the rows its Add wrote.
func (s *Sender) mine(id int64) bool {
	if !s.o.Own {
		return true
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.owned[id]
}

// attempt hands one row to the platform and records the outcome.
func (s *Sender) attempt(base context.Context, d Delivery) {
	ctx, cancel := context.WithTimeout(base, s.o.SendTimeout)
	sentID, err := s.send(ctx, d)
	cancel()
	final, werr := s.settle(base, d, sentID, err)
	if werr != nil {
		// The row stays in sending: the next start recovers it.
		s.log.Error("recording a delivery's outcome", "delivery", d.ID, "chat", d.Chat.ChatID, "send_err", err, "err", werr)
		return
	}
	if final {
		s.finished(d.ID)
	}
}

func (s *Sender) send(ctx context.Context, d Delivery) (string, error) {
	text := d.Text
	if d.Recovered && d.EditOf == "" {
		text = RecoveredMark + text
	}
	switch {
	case d.File != nil:
		f := *d.File
		if d.Recovered {
			f.Caption = strings.TrimSpace(RecoveredMark + f.Caption)
		}
		sent, err := s.a.Upload(ctx, d.Chat, f)
		return sent.MessageID, err
	case d.EditOf != "":
		err := s.a.Edit(ctx, d.Chat, d.EditOf, Outbound{Chat: d.Chat, Text: text, Plain: d.Plain, ReplyTo: d.ReplyTo, Buttons: d.Buttons})
		return d.EditOf, err
	}
	sent, err := s.a.Send(ctx, Outbound{Chat: d.Chat, Text: text, Plain: d.Plain, ReplyTo: d.ReplyTo, Buttons: d.Buttons})
	return sent.MessageID, err
}

// settle records the outcome of one try and reports whether the row is
// finished (delivered or failed).
func (s *Sender) settle(ctx context.Context, d Delivery, sentID string, err error) (final bool, werr error) {
	log := s.log.With("delivery", d.ID, "chat", d.Chat.ChatID, "attempt", d.Attempts)
	if err == nil {
		return true, s.store.markDelivered(ctx, d.ID, sentID)
	}
	now := s.store.now()
	se, answered := AsSendError(err)
	switch {
	case answered && se.NotModified && d.EditOf != "":
		return true, s.store.markDelivered(ctx, d.ID, sentID)
	case answered && se.RetryAfter > 0:
		until := now.Add(se.RetryAfter)
		log.Warn("rate limited: the chat's replies wait", "retry_after", se.RetryAfter, "until", until)
		return false, s.store.markRateLimited(ctx, d, until, err.Error())
	case answered && se.Permanent:
		log.Error("reply refused for good: not retried", "err", err)
		return true, s.store.markFailed(ctx, d.ID, err.Error())
	case answered && se.Format && !d.Plain && d.File == nil:
		text := d.Text
		if s.o.Plain != nil {
			text = s.o.Plain(text)
		}
		log.Warn("formatting refused: sending again as plain text", "err", err)
		return false, s.store.markPlain(ctx, d.ID, text, err.Error())
	case answered && se.Format:
		log.Error("formatting refused, also as plain text: not retried", "err", err)
		return true, s.store.markFailed(ctx, d.ID, err.Error())
	case d.Attempts >= s.o.MaxAttempts:
		why := fmt.Sprintf("gave up after %d attempts: %v", d.Attempts, err)
		log.Error("reply not delivered", "err", why)
		return true, s.store.markFailed(ctx, d.ID, why)
	}
	wait := s.o.Backoff << (d.Attempts - 1)
	log.Warn("send failed: retrying", "err", err, "in", wait)
	return false, s.store.markRetry(ctx, d.ID, now.Add(wait), err.Error())
}
