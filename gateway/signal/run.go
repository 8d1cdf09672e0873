package signal

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/hermes-go/hermes/gateway"
)

// run is one call of Run: the handler, the last event taken and the
// last state reported.
type run struct {
	a      *Adapter
	h      gateway.Handler
	lastID string
	last   *gateway.State
}

// errRefused marks an event the handler could not take: the stream is
// opened again from the event before it.
var errRefused = errors.New("the gateway did not take an event")

// Run reads the daemon's event stream and hands messages and reactions
// to h until ctx ends. A dropped stream is opened again after a backoff,
// from the last event taken, so the daemon sends what came meanwhile.
func (a *Adapter) Run(ctx context.Context, h gateway.Handler) error {
	if !a.running.CompareAndSwap(false, true) {
		return errors.New("signal: Run is already running")
	}
	defer a.running.Store(false)
	r := &run{a: a, h: h}
	if id, ok, err := a.kv.Get(ctx, a.kvKey()); err != nil {
		a.log.Warn("signal: reading the last event id", "err", err)
	} else if ok {
		r.lastID = id
	}
	wait := a.o.Backoff
	for {
		err := r.stream(ctx, func() { wait = a.o.Backoff })
		if ctx.Err() != nil {
			r.report(false, "stopped")
			return nil
		}
		if errors.Is(err, errRefused) {
			a.log.Warn("signal: an event was not taken; reading again from the one before", "err", err)
		}
		r.report(false, describe(err))
		t := time.NewTimer(wait)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			r.report(false, "stopped")
			return nil
		}
		wait = min(wait*2, a.o.MaxBackoff)
	}
}

func (a *Adapter) kvKey() string { return "signal:" + a.o.Account + ":event" }

// stream opens the event stream once and reads it until it fails.
func (r *run) stream(ctx context.Context, connected func()) error {
	resp, err := r.a.openEvents(ctx, r.lastID)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	r.report(true, r.a.o.Account)
	connected()
	return readEvents(resp.Body, func(ev event) error {
		if ev.Type != "" && ev.Type != "receive" {
			return nil
		}
		if err := r.handle(ctx, ev.Data); err != nil {
			return fmt.Errorf("%w: %w", errRefused, err)
		}
		if ev.ID != "" && ev.ID != r.lastID {
			r.lastID = ev.ID
			if err := r.a.kv.Set(ctx, r.a.kvKey(), ev.ID); err != nil {
				r.a.log.Warn("signal: saving the last event id", "err", err)
			}
		}
		return nil
	})
}

// handle reads one event's data ({"envelope": ..., "account": ...}).
// Only a message the handler refuses fails it; what cannot be read is
// logged and passed over, as it would fail again.
func (r *run) handle(ctx context.Context, data string) error {
	var ev struct {
		Envelope envelope `json:"envelope"`
		Account  string   `json:"account"`
	}
	if err := json.Unmarshal([]byte(data), &ev); err != nil {
		r.a.log.Warn("signal: an event that is not JSON passed over", "err", err)
		return nil
	}
	if ev.Account != "" && ev.Account != r.a.o.Account {
		return nil // another account of the same daemon
	}
	return r.envelope(ctx, &ev.Envelope)
}

// report tells the handler about a change of the connection.
func (r *run) report(connected bool, detail string) {
	if r.last != nil && r.last.Connected == connected && r.last.Detail == detail {
		return
	}
	s := gateway.State{Platform: r.a.Platform(), Connected: connected, Detail: detail, Since: r.a.o.Now()}
	r.last = &s
	if connected {
		r.a.log.Info("signal connected", "as", detail)
	} else {
		r.a.log.Warn("signal not connected", "reason", detail)
	}
	r.h.State(s)
}
