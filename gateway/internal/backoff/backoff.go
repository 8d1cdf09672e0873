// Package backoff is the wait between a platform adapter's attempts to
// connect: a first delay, doubled after each failure up to a cap, back to
// the first after a success, and never shorter than what the platform
// asked for; or, for a loop that counts its failures, that wait with
// jitter (Jittered).
package backoff

import (
	"context"
	"math/rand/v2"
	"time"
)

// Backoff is the next wait. Use one per loop, from one goroutine.
type Backoff struct {
	next, min, max time.Duration
}

// New starts at first and doubles up to most.
func New(first, most time.Duration) *Backoff {
	return &Backoff{next: first, min: first, max: max(first, most)}
}

// Wait waits the next delay, or atLeast when that is longer (a
// platform's retry-after), on a timer, and doubles the next delay; it
// reports false when ctx ends first.
func (b *Backoff) Wait(ctx context.Context, atLeast time.Duration) bool {
	d := max(b.next, atLeast)
	b.next = min(b.next*2, b.max)
	return Sleep(ctx, d)
}

// Jittered is the wait after failures failures in a row, for a loop that
// counts them: first doubled per failure up to most, with up to a fifth
// more at random so that many gateways do not reconnect in step.
func Jittered(first, most time.Duration, failures int) time.Duration {
	d := first
	for i := 0; i < failures && d < most; i++ {
		d *= 2
	}
	d = min(d, most)
	return d + rand.N(d/5+1)
}

// Sleep waits d or until ctx ends; it reports whether d passed.
func Sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}

// Reset makes the next wait the first delay again.
func (b *Backoff) Reset() { b.next = b.min }
