package provider

import (
	"sync"
	"testing"
	"time"
)

func TestPoolPicksUsableKeysAndReportsWhenOneIsBack(t *testing.T) {
	now := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	clock := now
	var saved []string
	p := NewPool("openai", []PoolKey{{Label: "a", Key: "ka"}, {Label: "b", Key: "kb"}, {Label: "c", Key: "kc"}},
		nil, func() time.Time { return clock }, func(fp string, st KeyState) { saved = append(saved, st.Status) })
	p.Cool("ka", 2*time.Minute)
	p.Refuse("kb")
	if k, ok := p.Pick(); !ok || k.Key != "kc" {
		t.Fatalf("pick %v %v, want kc", k, ok)
	}
	p.Cool("kc", 0) // no reset time given: DefaultCooldown
	if st := p.State("kc"); !st.Until.Equal(now.Add(DefaultCooldown)) {
		t.Fatalf("kc %+v", st)
	}
	// Every key out: the one back soonest, and when.
	if k, ok := p.Pick(); !ok || k.Key != "kc" || p.Usable() != 0 {
		t.Fatalf("pick %v %v usable %d", k, ok, p.Usable())
	}
	if at, ok := p.ReadyAt(); !ok || !at.Equal(now.Add(DefaultCooldown)) {
		t.Fatalf("ready at %v %v", at, ok)
	}
	clock = now.Add(DefaultCooldown)
	if k, _ := p.Pick(); k.Key != "kc" || p.Usable() != 1 {
		t.Fatalf("after kc's reset: %v, %d usable", k, p.Usable())
	}
	clock = now.Add(2 * time.Minute)
	if k, _ := p.Pick(); k.Key != "ka" {
		t.Fatalf("after ka's reset: %v", k)
	}
	if len(saved) != 3 {
		t.Fatalf("saved %v", saved)
	}
	// A wait longer than MaxWait is capped.
	p.Cool("ka", time.Hour)
	if st := p.State("ka"); !st.Until.Equal(clock.Add(MaxWait)) {
		t.Fatalf("ka %+v", st)
	}
}

func TestPoolEveryKeyRefusedPicksNone(t *testing.T) {
	p := NewPool("openai", []PoolKey{{Key: "ka"}, {Key: "kb"}}, map[string]KeyState{Fingerprint("ka"): {Status: KeyRefused}}, nil, nil)
	p.Refuse("kb")
	if _, ok := p.Pick(); ok {
		t.Fatal("picked a refused key")
	}
	if _, ok := p.ReadyAt(); ok {
		t.Fatal("ReadyAt with every key refused")
	}
}

func TestPoolIsSafeForConcurrentUse(t *testing.T) {
	p := NewPool("openai", []PoolKey{{Key: "ka"}, {Key: "kb"}}, nil, nil, func(string, KeyState) {})
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 100 {
				if i%2 == 0 {
					p.Cool("ka", time.Millisecond)
				} else {
					p.Pick()
					p.Usable()
					p.ReadyAt()
				}
			}
		}()
	}
	wg.Wait()
}
