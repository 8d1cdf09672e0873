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
