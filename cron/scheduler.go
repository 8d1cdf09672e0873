package cron

import (
	"cmp"
	"context"
	"fmt"
	"sync"
	"time"
)

// Scheduler fires due jobs. Run holds the scheduler lock of the home, so
// one scheduler per HERMES_HOME fires jobs (hermes cron daemon, or the
// one inside hermes gateway); a second waits and takes over when the
// first stops or dies. Even without the lock, every fire is claimed in
// the store first, so two schedulers sharing a store never run one fire
// twice.
type Scheduler struct {
	Store  *Store
	Runner *Runner
	Home   string
	// Clock is the time (default WallClock).
	Clock Clock
	// MaxParallel bounds the runs going at once over every job (default
	// 4); a claimed fire waits for a slot.
	MaxParallel int
	// Poll is how often the store is read again for jobs added or changed
	// by other processes, and the lock tried again (default 1s).
	Poll time.Duration
	// Logf reports what the scheduler does (nil: nothing).
	Logf func(format string, args ...any)

	once  sync.Once
	slots chan struct{}
	wg    sync.WaitGroup
}

func (s *Scheduler) init() {
	s.once.Do(func() {
		if s.Clock == nil {
			s.Clock = WallClock{}
		}
		s.slots = make(chan struct{}, cmp.Or(s.MaxParallel, 4))
		if s.Runner.Now == nil {
			s.Runner.Now = s.Clock.Now
		}
	})
}

func (s *Scheduler) logf(format string, args ...any) {
	if s.Logf != nil {
		s.Logf(format, args...)
	}
}

// Run waits for the scheduler lock, then fires due jobs until ctx ends;
// it then waits for the runs going to end (their own contexts end with
// ctx) and releases the lock. It returns nil when ctx ends.
func (s *Scheduler) Run(ctx context.Context) error {
	s.init()
	poll := cmp.Or(s.Poll, time.Second)
	unlock, err := waitLock(ctx, LockPath(s.Home), s.Clock, poll, func() {
		s.logf("cron: another scheduler (pid %s) holds %s; waiting for it to stop", LockHolder(s.Home), LockPath(s.Home))
	})
	if err != nil {
		if ctx.Err() != nil {
			return nil
		}
		return err
	}
	defer unlock()
	s.logf("cron: scheduler running (pid lock %s)", LockPath(s.Home))
	// Runs marked running that began before this scheduler took the
	// lock, longer ago than any run may last, belong to a process that
	// died.
	if n, err := s.Store.AbandonRuns(ctx, s.Clock.Now().Add(-s.staleAfter()), s.Clock.Now()); err != nil {
		s.logf("%v", err)
	} else if n > 0 {
		s.logf("cron: %d runs were left running by a process that stopped; marked failed", n)
	}
	defer s.wg.Wait()
	for {
		if err := s.Tick(ctx); err != nil {
			s.logf("%v", err)
		}
		wait := poll
		if next, err := s.Store.nextWake(ctx); err == nil && !next.IsZero() {
			wait = min(max(next.Sub(s.Clock.Now()), 0), poll)
		}
		select {
		case <-ctx.Done():
			return nil
		case <-s.Clock.After(wait):
		}
	}
}

// staleAfter is how long a run may be marked running before it counts
// as abandoned: the longest time limit and a margin.
func (s *Scheduler) staleAfter() time.Duration {
	return cmp.Or(s.Runner.Timeout, DefaultTimeout) + 5*time.Minute
}

// Tick claims the fires due now and starts their runs, without waiting
// for them (Wait does). Run calls it; tests call it with a clock they
// move.
func (s *Scheduler) Tick(ctx context.Context) error {
	s.init()
	now := s.Clock.Now()
	jobs, err := s.Store.due(ctx, now)
	if err != nil {
		return err
	}
	for _, j := range jobs {
		stale := now.Add(-max(s.staleAfter(), cmp.Or(j.Timeout, 0)+5*time.Minute))
		run, claimed, err := s.Store.claim(ctx, j, now, stale)
		if err != nil {
			s.logf("%v", err)
			continue
		}
		if !claimed || run == nil {
			continue
		}
		s.start(ctx, j, *run)
	}
	return nil
}

func (s *Scheduler) start(ctx context.Context, j Job, run Run) {
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		select {
		case s.slots <- struct{}{}:
		case <-ctx.Done():
			run.Status, run.Error, run.EndedAt = StatusSkipped, "the scheduler stopped before a run slot was free", s.Clock.Now()
			if err := s.Store.FinishRun(context.WithoutCancel(ctx), run); err != nil {
				s.logf("%v", err)
			}
			return
		}
		defer func() { <-s.slots }()
		s.logf("cron: job %s (%s): run %s starts", j.Name, j.ID, run.ID)
		done, err := s.Runner.Finish(ctx, j, run)
		if err != nil {
			s.logf("%v", err)
		}
		s.logf("cron: job %s (%s): run %s: %s%s", j.Name, j.ID, run.ID, done.Status, suffix(done.Error, done.Delivery))
	}()
}

func suffix(errText, delivery string) string {
	if errText != "" {
		return ": " + errText
	}
	if delivery != "" {
		return " (" + delivery + ")"
	}
	return ""
}

// Wait returns when the runs Tick started have ended.
func (s *Scheduler) Wait() { s.wg.Wait() }

// String describes the scheduler for logs.
func (s *Scheduler) String() string { return fmt.Sprintf("cron scheduler on %s", s.Store.Path()) }
