// Package backoff is the wait between a platform adapter's attempts to
// connect: a first delay, doubled after each failure up to a cap, back to
// the first after a success, and never shorter than what the platform
// asked for.
package backoff

import (
	"context"
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
