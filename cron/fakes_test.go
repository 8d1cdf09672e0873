package cron_test

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/hermes-go/hermes/cron"
)

// fakeClock is a clock the test moves; After's channels fire when it
// passes their time. waiting receives a value each time After is called.
type fakeClock struct {
	mu      sync.Mutex
	now     time.Time
	timers  []fakeTimer
	waiting chan struct{}
}

type fakeTimer struct {
	at time.Time
	ch chan time.Time
}

func newClock() *fakeClock {
	return &fakeClock{now: time.Date(2026, 3, 2, 8, 0, 0, 0, time.UTC), waiting: make(chan struct{}, 1000)}
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) After(d time.Duration) <-chan time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	ch := make(chan time.Time, 1)
	if d <= 0 {
		ch <- c.now
	} else {
		c.timers = append(c.timers, fakeTimer{c.now.Add(d), ch})
	}
	c.waiting <- struct{}{}
	return ch
}

func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
	kept := c.timers[:0]
	for _, t := range c.timers {
		if !t.at.After(c.now) {
			t.ch <- c.now
		} else {
			kept = append(kept, t)
		}
	}
	c.timers = kept
}

// fakeExec answers every run with answer, or blocks until release is
// closed or the run's context ends.
type fakeExec struct {
	mu      sync.Mutex
	answer  string
	denied  []string
	err     error
	release chan struct{}
	started chan cron.Job
	runs    int
}

func (f *fakeExec) Execute(ctx context.Context, j cron.Job) (cron.Outcome, error) {
	f.mu.Lock()
	f.runs++
	release, answer, denied, err := f.release, f.answer, f.denied, f.err
	f.mu.Unlock()
	if f.started != nil {
		f.started <- j
	}
	if release != nil {
		select {
		case <-release:
		case <-ctx.Done():
			return cron.Outcome{}, context.Cause(ctx)
		}
	}
	return cron.Outcome{Answer: answer, SessionID: "sess-1", Denied: denied}, err
}

func (f *fakeExec) count() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.runs
}

type delivered struct{ platform, chat, thread, text string }

// fakePlatforms records deliveries; fail makes them fail.
type fakePlatforms struct {
	mu   sync.Mutex
	got  []delivered
	fail error
	ch   chan delivered
}

func (p *fakePlatforms) Deliver(ctx context.Context, platform, chat, thread, text string) error {
	if p.fail != nil {
		return p.fail
	}
	d := delivered{platform, chat, thread, text}
	p.mu.Lock()
	p.got = append(p.got, d)
	p.mu.Unlock()
	if p.ch != nil {
		p.ch <- d
	}
	return nil
}

var errPlatformDown = errors.New("telegram: 502 bad gateway (the ledger retries it)")

func openStore(t *testing.T, home string) *cron.Store {
	t.Helper()
	st, err := cron.Open(cron.StorePath(home))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

func addJob(t *testing.T, st *cron.Store, clk *fakeClock, name, schedule, deliver string) cron.Job {
	t.Helper()
	s, err := cron.ParseSchedule(schedule, clk.Now(), time.UTC)
	if err != nil {
		t.Fatal(err)
	}
	j, err := st.Add(context.Background(), cron.Job{Name: name, Schedule: s, Prompt: "report", Deliver: deliver}, clk.Now())
	if err != nil {
		t.Fatal(err)
	}
	return j
}

func newScheduler(st *cron.Store, home string, clk *fakeClock, exec cron.Executor, p cron.Platforms) *cron.Scheduler {
	return &cron.Scheduler{Store: st, Home: home, Clock: clk, Poll: time.Second,
		Runner: &cron.Runner{Store: st, Exec: exec, Deliver: &cron.Deliverer{Platforms: p}, Home: home, Now: clk.Now}}
}

func history(t *testing.T, st *cron.Store, jobID string) []cron.Run {
	t.Helper()
	runs, err := st.History(context.Background(), jobID, 0)
	if err != nil {
		t.Fatal(err)
	}
	return runs
}

func byStatus(runs []cron.Run, s cron.Status) []cron.Run {
	var out []cron.Run
	for _, r := range runs {
		if r.Status == s {
			out = append(out, r)
		}
	}
	return out
}

func storeFile(home string) string { return filepath.Join(home, "cron", "cron.db") }

// within fails the test when ch gives nothing for long (a hang, not a
// timing assumption: the fake clock drives everything).
func within[T any](t *testing.T, ch <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(20 * time.Second):
		t.Fatalf("timed out waiting for %s", what)
		var zero T
		return zero
	}
}

func sprintf(f string, a ...any) string { return fmt.Sprintf(f, a...) }
