package backoff

import (
	"context"
	"testing"
	"time"
)

func TestTheWaitDoublesUpToItsCapAndResets(t *testing.T) {
	b := New(time.Millisecond, 4*time.Millisecond)
	var got []time.Duration
	for range 4 {
		got = append(got, b.next)
		if !b.Wait(context.Background(), 0) {
			t.Fatal("a wait with a live context was cut short")
		}
	}
	if want := []time.Duration{1, 2, 4, 4}; got[0] != want[0]*time.Millisecond || got[1] != want[1]*time.Millisecond ||
		got[2] != want[2]*time.Millisecond || got[3] != want[3]*time.Millisecond {
		t.Fatalf("the waits were %v", got)
	}
	b.Reset()
	if b.next != time.Millisecond {
		t.Fatalf("after a reset the next wait is %v", b.next)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if b.Wait(ctx, time.Hour) {
		t.Fatal("a wait whose context ended reported it passed")
	}
}

// Jittered doubles per failure up to its cap and adds at most a fifth.
func TestJitteredDoublesToItsCapWithAFifthMore(t *testing.T) {
	for failures, base := range []time.Duration{100, 200, 400, 800, 800} {
		base *= time.Millisecond
		for range 50 {
			if d := Jittered(100*time.Millisecond, 800*time.Millisecond, failures); d < base || d > base+base/5 {
				t.Fatalf("after %d failures the wait is %v, want %v to %v", failures, d, base, base+base/5)
			}
		}
	}
}
