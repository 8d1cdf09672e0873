package cron_test

import (
	"context"
	"database/sql"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hermes-go/hermes/cron"

	_ "modernc.org/sqlite"
)

func TestOneSecondJobRunsUnderAFakeClockAndDeliversToPlatformAndLocalFile(t *testing.T) {
	home, clk := t.TempDir(), newClock()
	st := openStore(t, home)
	j := addJob(t, st, clk, "pulse", "every 1s", "telegram:42:7")
	plat := &fakePlatforms{ch: make(chan delivered, 10)}
	exec := &fakeExec{answer: "all quiet"}
	s := newScheduler(st, home, clk, exec, plat)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	go func() { done <- s.Run(ctx) }()
	for i := 0; i < 3; i++ {
		within(t, clk.waiting, "the scheduler to wait")
		clk.Advance(time.Second)
		d := within(t, plat.ch, "a delivery")
		if d != (delivered{"telegram", "42", "7", "all quiet"}) {
			t.Fatalf("delivered %+v", d)
		}
	}
	cancel()
	if err := within(t, done, "Run to return"); err != nil {
		t.Fatal(err)
	}
	runs := byStatus(history(t, st, j.ID), cron.StatusOK)
	if len(runs) != 3 {
		t.Fatalf("%d ok runs, want 3: %+v", len(runs), history(t, st, j.ID))
	}
	for _, r := range runs {
		if r.Output != cron.OutputPath(home, j.ID, r.ID) {
			t.Fatalf("output %q", r.Output)
		}
		b, err := os.ReadFile(r.Output)
		if err != nil || string(b) != "all quiet" {
			t.Fatalf("output file: %q %v", b, err)
		}
	}
	got, _ := st.Job(context.Background(), "pulse")
	if got.LastStatus != cron.StatusOK || !got.NextRunAt.After(clk.Now()) {
		t.Fatalf("job after runs: %+v", got)
	}
}

func TestMissedFiresAfterARestartRunOnceWithinGraceAndTheRestAreSkipped(t *testing.T) {
	home, clk := t.TempDir(), newClock()
	st := openStore(t, home)
	j := addJob(t, st, clk, "hourly", "every 1h", "local")
	st.Close()
	// Nothing ran for three hours and ten minutes: fires at +1h, +2h and
	// +3h were missed; the last is 10m late, inside its 30m grace.
	clk.Advance(3*time.Hour + 10*time.Minute)
	st = openStore(t, home)
	exec := &fakeExec{answer: "report"}
	s := newScheduler(st, home, clk, exec, nil)
	if err := s.Tick(context.Background()); err != nil {
		t.Fatal(err)
	}
	s.Wait()
	if exec.count() != 1 {
		t.Fatalf("%d runs, want exactly 1", exec.count())
	}
	h := history(t, st, j.ID)
	ok, skipped := byStatus(h, cron.StatusOK), byStatus(h, cron.StatusSkipped)
	if len(ok) != 1 || !ok[0].ScheduledAt.Equal(j.NextRunAt.Add(2*time.Hour)) {
		t.Fatalf("ok runs %+v", ok)
	}
	if len(skipped) != 2 {
		t.Fatalf("skipped %+v", skipped)
	}
	for _, r := range skipped {
		if !strings.Contains(r.Error, "collapsed") {
			t.Fatalf("skipped without its reason: %+v", r)
		}
	}
	got, _ := st.Job(context.Background(), j.ID)
	if want := j.NextRunAt.Add(3 * time.Hour); !got.NextRunAt.Equal(want) {
		t.Fatalf("next fire %v, want %v", got.NextRunAt, want)
	}
	// A second tick at the same time finds nothing due.
	s.Tick(context.Background())
	s.Wait()
	if exec.count() != 1 {
		t.Fatalf("%d runs after a second tick", exec.count())
	}
}

func TestAFireOutsideItsGraceIsSkippedWithItsReason(t *testing.T) {
	home, clk := t.TempDir(), newClock()
	st := openStore(t, home)
	j := addJob(t, st, clk, "hourly", "every 1h", "local")
	clk.Advance(time.Hour + 45*time.Minute) // 45m late, grace 30m
	exec := &fakeExec{answer: "x"}
	s := newScheduler(st, home, clk, exec, nil)
	s.Tick(context.Background())
	s.Wait()
	if exec.count() != 0 {
		t.Fatalf("ran %d times", exec.count())
	}
	h := history(t, st, j.ID)
	if len(h) != 1 || h[0].Status != cron.StatusSkipped || !strings.Contains(h[0].Error, "outside the grace window of 30m0s") {
		t.Fatalf("history %+v", h)
	}
	got, _ := st.Job(context.Background(), j.ID)
	if got.LastStatus != cron.StatusSkipped || got.LastError == "" || !got.NextRunAt.Equal(j.NextRunAt.Add(time.Hour)) {
		t.Fatalf("job %+v", got)
	}
}

func TestABacklogPastTheCapIsCountedNotDropped(t *testing.T) {
	home, clk := t.TempDir(), newClock()
	st := openStore(t, home)
	j := addJob(t, st, clk, "fast", "every 1s", "local")
	clk.Advance(501 * time.Second) // 501 fires: 101 listed, 399 counted, the last runs
	exec := &fakeExec{answer: "x"}
	s := newScheduler(st, home, clk, exec, nil)
	s.Tick(context.Background())
	s.Wait()
	h := history(t, st, j.ID)
	if exec.count() != 1 || len(byStatus(h, cron.StatusOK)) != 1 {
		t.Fatalf("runs %d, history %d rows", exec.count(), len(h))
	}
	var counted bool
	for _, r := range byStatus(h, cron.StatusSkipped) {
		if strings.Contains(r.Error, "399 more fires") {
			counted = true
		}
	}
	if !counted || len(byStatus(h, cron.StatusSkipped)) != 102 {
		t.Fatalf("%d skipped rows, counted %v", len(byStatus(h, cron.StatusSkipped)), counted)
	}
}

func TestAFireWhileThePreviousRunIsGoingIsSkipped(t *testing.T) {
	home, clk := t.TempDir(), newClock()
	st := openStore(t, home)
	j := addJob(t, st, clk, "slow", "every 1s", "local")
	exec := &fakeExec{answer: "done", release: make(chan struct{}), started: make(chan cron.Job, 5)}
	s := newScheduler(st, home, clk, exec, nil)
	clk.Advance(time.Second)
	s.Tick(context.Background())
	within(t, exec.started, "the first run")
	clk.Advance(time.Second)
	s.Tick(context.Background())
	close(exec.release)
	s.Wait()
	h := history(t, st, j.ID)
	sk := byStatus(h, cron.StatusSkipped)
	if exec.count() != 1 || len(sk) != 1 || !strings.Contains(sk[0].Error, "still running") {
		t.Fatalf("runs %d, history %+v", exec.count(), h)
	}
}

func TestTwoSchedulersOnOneStoreRunEachFireOnce(t *testing.T) {
	home, clk := t.TempDir(), newClock()
	a, b := openStore(t, home), openStore(t, home)
	j := addJob(t, a, clk, "pulse", "every 1s", "local")
	exec := &fakeExec{answer: "x"}
	sa, sb := newScheduler(a, home, clk, exec, nil), newScheduler(b, home, clk, exec, nil)
	const fires = 20
	for i := 0; i < fires; i++ {
		clk.Advance(time.Second)
		var wg sync.WaitGroup
		for _, s := range []*cron.Scheduler{sa, sb} {
			wg.Add(1)
			go func() { defer wg.Done(); s.Tick(context.Background()) }()
		}
		wg.Wait()
		sa.Wait()
		sb.Wait()
	}
	if exec.count() != fires {
		t.Fatalf("%d runs for %d fires", exec.count(), fires)
	}
	seen := map[time.Time]bool{}
	for _, r := range byStatus(history(t, a, j.ID), cron.StatusOK) {
		if seen[r.ScheduledAt] {
			t.Fatalf("fire %v ran twice", r.ScheduledAt)
		}
		seen[r.ScheduledAt] = true
	}
	if len(seen) != fires {
		t.Fatalf("%d fires ran", len(seen))
	}
}

func TestASecondSchedulerWaitsForTheLockAndTakesOver(t *testing.T) {
	home, clk := t.TempDir(), newClock()
	st := openStore(t, home)
	logs := make(chan string, 100)
	logf := func(f string, a ...any) { logs <- strings.TrimSpace(strings.SplitN(sprintf(f, a...), "\n", 2)[0]) }
	first, second := newScheduler(st, home, clk, &fakeExec{}, nil), newScheduler(st, home, clk, &fakeExec{}, nil)
	first.Logf, second.Logf = logf, logf
	ctx1, stop1 := context.WithCancel(context.Background())
	done1 := make(chan error)
	go func() { done1 <- first.Run(ctx1) }()
	waitLog(t, logs, "scheduler running")
	ctx2, stop2 := context.WithCancel(context.Background())
	defer stop2()
	done2 := make(chan error)
	go func() { done2 <- second.Run(ctx2) }()
	waitLog(t, logs, "waiting for it to stop")
	stop1()
	within(t, done1, "the first scheduler to stop")
	clk.Advance(time.Second) // the second tries the lock again
	waitLog(t, logs, "scheduler running")
	stop2()
	within(t, done2, "the second scheduler to stop")
}

func waitLog(t *testing.T, logs chan string, want string) {
	t.Helper()
	for {
		if l := within(t, logs, want); strings.Contains(l, want) {
			return
		}
	}
}

func TestRepeatCountsRunsAndCompletesTheJob(t *testing.T) {
	home, clk := t.TempDir(), newClock()
	st := openStore(t, home)
	s0, _ := cron.ParseSchedule("every 1s", clk.Now(), time.UTC)
	j, err := st.Add(context.Background(), cron.Job{Name: "twice", Schedule: s0, Prompt: "p", Repeat: 2}, clk.Now())
	if err != nil {
		t.Fatal(err)
	}
	exec := &fakeExec{answer: "x"}
	s := newScheduler(st, home, clk, exec, nil)
	for i := 0; i < 4; i++ {
		clk.Advance(time.Second)
		s.Tick(context.Background())
		s.Wait()
	}
	got, _ := st.Job(context.Background(), j.ID)
	if exec.count() != 2 || got.State != cron.StateCompleted || got.Enabled || !got.NextRunAt.IsZero() {
		t.Fatalf("runs %d, job %+v", exec.count(), got)
	}
}

func TestAPausedJobDoesNotFire(t *testing.T) {
	home, clk := t.TempDir(), newClock()
	st := openStore(t, home)
	j := addJob(t, st, clk, "p", "every 1s", "local")
	if _, err := st.Pause(context.Background(), j.ID, clk.Now()); err != nil {
		t.Fatal(err)
	}
	exec := &fakeExec{answer: "x"}
	s := newScheduler(st, home, clk, exec, nil)
	clk.Advance(5 * time.Second)
	s.Tick(context.Background())
	s.Wait()
	if exec.count() != 0 {
		t.Fatal("a paused job ran")
	}
	r, err := st.Resume(context.Background(), "p", clk.Now())
	if err != nil || !r.NextRunAt.After(clk.Now()) {
		t.Fatalf("resume: %+v %v", r, err)
	}
}

// A run left "running" by a process that died does not hold the job
// back: it is marked failed and the next fire runs.
func TestARunLeftByADeadProcessDoesNotBlockTheJob(t *testing.T) {
	home, clk := t.TempDir(), newClock()
	st := openStore(t, home)
	j := addJob(t, st, clk, "pulse", "every 1s", "local")
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("sqlite", storeFile(home))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(`INSERT INTO runs (id, job_id, started_at, status, created_at, pid) VALUES ('orphan', ?, ?, 'running', ?, ?)`,
		j.ID, clk.Now().UnixMilli(), clk.Now().UnixMilli(), dead.Process.Pid); err != nil {
		t.Fatal(err)
	}
	fx := &fakeExec{answer: "x"}
	s := newScheduler(st, home, clk, fx, nil)
	clk.Advance(time.Second)
	s.Tick(context.Background())
	s.Wait()
	h := history(t, st, j.ID)
	if fx.count() != 1 || len(byStatus(h, cron.StatusFailed)) != 1 || !strings.Contains(byStatus(h, cron.StatusFailed)[0].Error, "stopped") {
		t.Fatalf("runs %d, history %+v", fx.count(), h)
	}
}
