package apiserver

import (
	"context"
	"runtime"
	"runtime/debug"
	"strconv"
	"sync"
	"time"
)

// idleRelease is how long the server stays without a running turn
// before it hands the memory the last burst used back to the system.
const idleRelease = 3 * time.Second

// limiter bounds the turns running at once. A request over the bound
// waits up to wait for a slot. When the last turn ends and none starts
// for idleRelease, it returns freed memory to the system: Go collects
// garbage only as it allocates, so a server gone quiet after a burst
// would otherwise keep the burst's pages resident.
type limiter struct {
	slots chan struct{}
	wait  time.Duration

	mu        sync.Mutex
	running   int
	idle      *time.Timer
	idleAfter time.Duration
	release   func() // the idle action (freeMemory)
}

func newLimiter(n int, wait time.Duration) *limiter {
	return &limiter{slots: make(chan struct{}, n), wait: wait, idleAfter: idleRelease, release: freeMemory}
}

// freeMemory collects twice, then returns the free pages: a first
// collection only moves what sync.Pools (net/http's buffers) hold to
// their victim caches.
func freeMemory() {
	runtime.GC()
	debug.FreeOSMemory()
}

// acquire takes a slot; ok is false when none freed in time (or the
// client left).
func (l *limiter) acquire(ctx context.Context) (release func(), ok bool) {
	select {
	case l.slots <- struct{}{}:
		return l.started(), true
	default:
	}
	if l.wait <= 0 {
		return nil, false
	}
	t := time.NewTimer(l.wait)
	defer t.Stop()
	select {
	case l.slots <- struct{}{}:
		return l.started(), true
	case <-t.C:
	case <-ctx.Done():
	}
	return nil, false
}

func (l *limiter) started() func() {
	l.mu.Lock()
	l.running++
	if l.idle != nil {
		l.idle.Stop()
	}
	l.mu.Unlock()
	var once sync.Once
	return func() { once.Do(l.done) }
}

func (l *limiter) done() {
	<-l.slots
	l.mu.Lock()
	defer l.mu.Unlock()
	l.running--
	if l.running > 0 {
		return
	}
	if l.idle == nil {
		l.idle = time.AfterFunc(l.idleAfter, l.quiet)
		return
	}
	l.idle.Reset(l.idleAfter)
}

// poke restarts the idle countdown when nothing runs: a closed client
// connection leaves garbage the last release did not see.
func (l *limiter) poke() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.running > 0 || l.idle == nil {
		return
	}
	l.idle.Reset(l.idleAfter)
}

func (l *limiter) quiet() {
	l.mu.Lock()
	busy := l.running > 0
	l.mu.Unlock()
	if !busy {
		l.release()
	}
}

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
