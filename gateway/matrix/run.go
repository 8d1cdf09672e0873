package matrix

import (
	"context"
	"errors"
	"fmt"
	"time"

	"maunium.net/go/mautrix"
	"maunium.net/go/mautrix/id"

	"github.com/hermes-go/hermes/gateway"
	"github.com/hermes-go/hermes/gateway/internal/backoff"
)

// run is one call of Run: the handler and the last state reported.
type run struct {
	a    *Adapter
	h    gateway.Handler
	me   id.UserID
	last *gateway.State
}

// Run logs in (whoami) and syncs, handing events to h until ctx ends. It
// returns an error only when the homeserver refuses the access token.
func (a *Adapter) Run(ctx context.Context, h gateway.Handler) error {
	if !a.running.CompareAndSwap(false, true) {
		return errors.New("matrix: Run is already running")
	}
	defer a.running.Store(false)
	r := &run{a: a, h: h}
	defer func() {
		if ctx.Err() != nil {
			r.report(false, "stopped")
		}
	}()
	me, err := r.login(ctx)
	if err != nil || me == "" {
		return err
	}
	r.me = me
	return r.sync(ctx)
}

// login asks whoami who the bot is, retrying until it answers; a refused
// token ends Run. It returns "", nil when ctx ends first.
func (r *run) login(ctx context.Context) (id.UserID, error) {
	b := r.backoff()
	for {
		cctx, cancel := context.WithTimeout(ctx, callTimeout)
		who, err := r.a.cli.Whoami(cctx)
		cancel()
		switch {
		case err == nil:
			r.a.cli.UserID = who.UserID
			name := ""
			cctx, cancel := context.WithTimeout(ctx, callTimeout)
			if dn, err := r.a.cli.GetDisplayName(cctx, who.UserID); err == nil {
				name = dn.DisplayName
			} else if ctx.Err() == nil {
				r.a.log.Warn("matrix display name not read; mentions by user id only", "err", err)
			}
			cancel()
			r.a.mu.Lock()
			r.a.me, r.a.name = who.UserID, name
			r.a.mu.Unlock()
			return who.UserID, nil
		case ctx.Err() != nil:
			return "", nil
		case refused(err):
			r.report(false, describe(err))
			return "", fmt.Errorf("matrix: the homeserver refused the access token: %w", err)
		}
		r.report(false, describe(err))
		r.a.log.Warn("matrix whoami failed", "err", err)
		if !b.Wait(ctx, retryAfter(err)) {
			return "", nil
		}
	}
}

// sync long-polls /sync. A batch's next_batch token is stored in the KV
// only once every event of the batch was taken (Message returned nil), so
// a restart resumes after the last batch handled and never skips one;
// events a repeated batch brings again are dropped by event id, here
// and by the gateway. The very first sync of an account (no token
// stored) only joins rooms and learns the token: what was said before
// the bot ever ran is not answered.
func (r *run) sync(ctx context.Context) error {
	since, stored := r.loadSince(ctx)
	b := r.backoff()
	connected := false
	for ctx.Err() == nil {
		timeout := r.a.o.SyncTimeout
		if !connected {
			timeout = 0 // the first answer comes at once: the state is known without waiting out a long poll
		}
		cctx, cancel := context.WithTimeout(ctx, timeout+syncGrace)
		resp, err := r.a.cli.FullSyncRequest(cctx, mautrix.ReqSync{Timeout: int(timeout / time.Millisecond), Since: since, FilterID: syncFilter})
		cancel()
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			if refused(err) {
				r.report(false, describe(err))
				return fmt.Errorf("matrix: the homeserver refused the access token: %w", err)
			}
			connected = false
			r.a.log.Warn("matrix sync failed", "err", err)
			r.report(false, describe(err))
			b.Wait(ctx, retryAfter(err))
			continue
		}
		connected = true
		r.report(true, string(r.me))
		if err := r.handleSync(ctx, resp, since, stored); err != nil {
			if ctx.Err() == nil {
				r.a.log.Error("matrix events not taken; syncing them again", "err", err)
				b.Wait(ctx, 0)
			}
			continue
		}
		b.Reset()
		if resp.NextBatch != "" && resp.NextBatch != since {
			since, stored = resp.NextBatch, true
			r.saveSince(ctx, since)
		}
	}
	return nil
}

// syncFilter is an inline filter: up to 100 events a room per sync
// (homeservers default to 10; a longer gap is read back with /messages),
// and none of the presence and account data the adapter does not read.
const syncFilter = `{"room":{"timeline":{"limit":100}},"presence":{"not_types":["*"]},"account_data":{"not_types":["*"]}}`

// report tells the handler about a change of the connection.
func (r *run) report(connected bool, detail string) {
	if r.last != nil && r.last.Connected == connected && r.last.Detail == detail {
		return
	}
	s := gateway.State{Platform: r.a.Platform(), Connected: connected, Detail: detail, Since: r.a.o.Now()}
	r.last = &s
	if connected {
		r.a.log.Info("matrix connected", "as", detail)
	} else {
		r.a.log.Warn("matrix not connected", "reason", detail)
	}
	r.h.State(s)
}

func (r *run) sinceKey() string { return "matrix:" + string(r.me) + ":since" }

// loadSince reads the stored sync token; ok is false without one.
func (r *run) loadSince(ctx context.Context) (string, bool) {
	v, ok, err := r.a.kv.Get(ctx, r.sinceKey())
	if err != nil {
		r.a.log.Error("matrix sync token not read; starting from now", "err", err)
		return "", false
	}
	return v, ok && v != ""
}

// saveSince stores the sync token. A failure is logged, not fatal: the
// next process syncs the batch again and the gateway drops what it
// already took.
func (r *run) saveSince(ctx context.Context, since string) {
	if err := r.a.kv.Set(context.WithoutCancel(ctx), r.sinceKey(), since); err != nil {
		r.a.log.Error("matrix sync token not saved", "err", err)
	}
}

// backoff is the wait between attempts: Backoff, doubled after each
// failure up to MaxBackoff, at least the homeserver's retry_after_ms.
func (r *run) backoff() *backoff.Backoff { return backoff.New(r.a.o.Backoff, r.a.o.MaxBackoff) }
