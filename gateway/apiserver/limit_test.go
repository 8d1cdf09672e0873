package apiserver

import (
	"context"
	"testing"
	"time"
)

// The limiter bounds runs, and once the last run ends and none starts
// for a while, it hands memory back (once per quiet spell).
func TestTheLimiterBoundsRunsAndReleasesMemoryWhenQuiet(t *testing.T) {
	l := newLimiter(2, 0)
	released := make(chan struct{}, 10)
	l.idleAfter = time.Millisecond
	l.release = func() { released <- struct{}{} }
	ctx := context.Background()
	r1, ok1 := l.acquire(ctx)
	r2, ok2 := l.acquire(ctx)
	if _, ok3 := l.acquire(ctx); !ok1 || !ok2 || ok3 {
		t.Fatalf("acquired %v %v, third %v", ok1, ok2, ok3)
	}
	r1()
	r1() // releasing twice frees one slot only
	if _, ok := l.acquire(ctx); !ok {
		t.Fatal("a freed slot was not reusable")
	}
	if _, ok := l.acquire(ctx); ok {
		t.Fatal("releasing twice freed two slots")
	}
	select {
	case <-released:
		t.Fatal("memory released while runs were going on")
	default:
	}
	r2()
	l.mu.Lock()
	running := l.running
	l.mu.Unlock()
	if running != 1 {
		t.Fatalf("%d running", running)
	}
}

func TestTheLimiterReleasesAfterTheLastRun(t *testing.T) {
	l := newLimiter(1, 0)
	released := make(chan struct{}, 10)
	l.idleAfter = time.Millisecond
	l.release = func() { released <- struct{}{} }
	r, _ := l.acquire(context.Background())
	r()
	select {
	case <-released:
	case <-time.After(10 * time.Second):
		t.Fatal("no release after the last run ended")
	}
	if got := l.retryAfter(); got != "1" {
		t.Fatalf("Retry-After %q", got)
	}
}
