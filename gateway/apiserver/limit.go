package apiserver

import (
	"context"
	"strconv"
	"time"
)

// limiter bounds the turns running at once. A request over the bound
// waits up to wait for a slot.
type limiter struct {
	slots chan struct{}
	wait  time.Duration
}

func newLimiter(n int, wait time.Duration) *limiter {
	return &limiter{slots: make(chan struct{}, n), wait: wait}
}

// acquire takes a slot; ok is false when none freed in time (or the
// client left).
func (l *limiter) acquire(ctx context.Context) (release func(), ok bool) {
	select {
	case l.slots <- struct{}{}:
		return l.release, true
	default:
	}
	if l.wait <= 0 {
		return nil, false
	}
	t := time.NewTimer(l.wait)
	defer t.Stop()
	select {
	case l.slots <- struct{}{}:
		return l.release, true
	case <-t.C:
	case <-ctx.Done():
	}
	return nil, false
}

func (l *limiter) release() { <-l.slots }

// retryAfter is the Retry-After a refused request gets, in seconds.
func (l *limiter) retryAfter() string {
	s := int(l.wait / time.Second)
	switch {
	case s < 1:
		return "1"
	case s > 30:
		return "30"
	}
	return strconv.Itoa(s)
}
