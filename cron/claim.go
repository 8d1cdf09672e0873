package cron

import (
	"context"
	"database/sql"
	"fmt"
	"time"
)

// maxSkippedRows bounds the rows one claim writes for a backlog: past
// it, one row counts the rest, so a 1-second job missed for a day is
// still accounted for without 86,400 rows.
const maxSkippedRows = 100

// due lists the enabled jobs whose next fire is at or before now.
func (s *Store) due(ctx context.Context, now time.Time) ([]Job, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT `+jobColumns+` FROM jobs WHERE enabled = 1 AND next_run_at > 0 AND next_run_at <= ?
		ORDER BY next_run_at, id`, millis(now))
	if err != nil {
		return nil, fmt.Errorf("cron: due jobs: %w", err)
	}
	defer rows.Close()
	var out []Job
	for rows.Next() {
		j, err := scanJob(rows)
		if err != nil {
			return nil, fmt.Errorf("cron: due jobs: %w", err)
		}
		out = append(out, j)
	}
	return out, rows.Err()
}

// nextWake is the earliest next fire of an enabled job (zero: none).
func (s *Store) nextWake(ctx context.Context) (time.Time, error) {
	var n sql.NullInt64
	if err := s.db.QueryRowContext(ctx, `SELECT MIN(next_run_at) FROM jobs WHERE enabled = 1 AND next_run_at > 0`).Scan(&n); err != nil {
		return time.Time{}, fmt.Errorf("cron: next fire: %w", err)
	}
	return fromMillis(n.Int64), nil
}

// claim takes the due fires of j at now, in one transaction that moves
// the job's next fire on only if it still is the one j was read with: of
// two schedulers sharing the store, one claims a fire and the other
// finds nothing. The fires missed are written to the history as skipped,
// with the reason; the one to run, if any, is returned as a running Run.
// staleCut: a run of the job still marked running that started after it
// is alive, and the fire is skipped rather than run beside it.
func (s *Store) claim(ctx context.Context, j Job, now, staleCut time.Time) (*Run, bool, error) {
	var run *Run
	claimed := false
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		run, claimed = nil, false
		sched := j.Schedule
		// fires are the first missed ones (up to the cap) and last the
		// newest due one, which may run.
		fires, more, last := []time.Time{j.NextRunAt}, 0, j.NextRunAt
		if sched.Kind != Once {
			for f := sched.Next(j.NextRunAt); !f.IsZero() && !f.After(now) && more < 10_000_000; f = sched.Next(f) {
				if len(fires) < maxSkippedRows+1 {
					fires = append(fires, f)
				} else {
					more++
				}
				last = f
			}
		}
		if more == 0 {
			fires = fires[:len(fires)-1] // last is in the list; the others are skipped
		}
		next := sched.Next(last)
		if sched.Kind == Once || !next.After(now) {
			next = sched.Next(now)
		}
		late, grace := now.Sub(last), sched.Grace(last)
		runIt := late <= grace
		var reasonLast string
		if !runIt {
			reasonLast = fmt.Sprintf("missed by %s, outside the grace window of %s (half the period, at least %s, at most %s)",
				late.Round(time.Second), grace, MinGrace, MaxGrace)
		} else if id, busy, err := s.running(ctx, tx, j.ID, staleCut, now); err != nil {
			return err
		} else if busy {
			runIt = false
			reasonLast = fmt.Sprintf("the previous run (%s) was still running", id)
		}
		remaining, enabled, state := j.Remaining, 1, StateScheduled
		if runIt && j.Repeat > 0 {
			remaining--
		}
		if sched.Kind == Once || (j.Repeat > 0 && remaining <= 0) {
			next, enabled, state = time.Time{}, 0, StateCompleted
		}
		res, err := tx.ExecContext(ctx, `UPDATE jobs SET next_run_at=?, remaining=?, enabled=?, state=? WHERE id=? AND next_run_at=? AND enabled=1`,
			millis(next), remaining, enabled, state, j.ID, millis(j.NextRunAt))
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil || n != 1 {
			return err // another scheduler claimed it: nothing to do
		}
		claimed = true
		for _, f := range fires {
			reason := fmt.Sprintf("collapsed into the fire of %s: fires missed while no scheduler ran are run once", last.Format(time.RFC3339))
			if !runIt {
				reason = reasonLast
			}
			if err := insertRun(ctx, tx, Run{ID: NewID(), JobID: j.ID, ScheduledAt: f, Status: StatusSkipped, Error: reason, CreatedAt: now}); err != nil {
				return err
			}
		}
		if more > 1 {
			reason := fmt.Sprintf("%d more fires before %s were missed and collapsed", more-1, last.Format(time.RFC3339))
			if err := insertRun(ctx, tx, Run{ID: NewID(), JobID: j.ID, ScheduledAt: last, Status: StatusSkipped, Error: reason, CreatedAt: now}); err != nil {
				return err
			}
		}
		if !runIt {
			if err := insertRun(ctx, tx, Run{ID: NewID(), JobID: j.ID, ScheduledAt: last, Status: StatusSkipped, Error: reasonLast, CreatedAt: now}); err != nil {
				return err
			}
			_, err := tx.ExecContext(ctx, `UPDATE jobs SET last_status=?, last_error=? WHERE id=?`, string(StatusSkipped), reasonLast, j.ID)
			return err
		}
		r := Run{ID: NewID(), JobID: j.ID, ScheduledAt: last, StartedAt: now, Status: StatusRunning, CreatedAt: now}
		run = &r
		return insertRun(ctx, tx, r)
	})
	if err != nil {
		return nil, false, fmt.Errorf("cron: claim the fire of job %s: %w", j.ID, err)
	}
	return run, claimed, nil
}
