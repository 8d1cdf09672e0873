package cron

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"syscall"
	"time"
)

// Status is how a run (or a fire that did not run) ended.
type Status string

// Statuses of the history. Every fire ends in one of them: nothing is
// skipped without a row saying why.
const (
	StatusRunning Status = "running"
	// StatusOK: the run answered and the answer was delivered (or was
	// [SILENT]).
	StatusOK Status = "ok"
	// StatusFailed: the run did not complete; Run.Error says why.
	StatusFailed Status = "failed"
	// StatusDeliveryFailed: the run answered, the answer is in its output
	// file, but delivering it failed (Run.Delivery says how).
	StatusDeliveryFailed Status = "delivery_failed"
	// StatusDenied: the run needed a command approved, and nobody was
	// there to approve it.
	StatusDenied Status = "denied"
	// StatusTimeout: the run went past its time limit and was stopped.
	StatusTimeout Status = "timeout"
	// StatusSkipped: the fire did not run; Run.Error says why.
	StatusSkipped Status = "skipped"
)

// Run is one row of a job's history: a run, or a fire that was skipped.
type Run struct {
	ID          string
	JobID       string
	ScheduledAt time.Time // the fire it belongs to (zero for hermes cron run)
	StartedAt   time.Time
	EndedAt     time.Time
	Status      Status
	// Error says why a run failed or a fire was skipped.
	Error string
	// Output is the run's output file.
	Output    string
	SessionID string
	// Delivery is the delivery's outcome: "delivered to TARGET",
	// "silent", or the delivery error.
	Delivery  string
	CreatedAt time.Time
}

const runColumns = `id, job_id, scheduled_at, started_at, ended_at, status, error, output, session_id, delivery, created_at`

func runArgs(r Run) []any {
	return []any{r.ID, r.JobID, millis(r.ScheduledAt), millis(r.StartedAt), millis(r.EndedAt), string(r.Status), r.Error,
		r.Output, r.SessionID, r.Delivery, millis(r.CreatedAt)}
}

type execer interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
}

// insertRun writes a history row; a running one carries this process's
// pid, so a run left by a process that died can be told from a live one.
func insertRun(ctx context.Context, x execer, r Run) error {
	pid := 0
	if r.Status == StatusRunning {
		pid = os.Getpid()
	}
	_, err := x.ExecContext(ctx, `INSERT INTO runs (`+runColumns+`, pid) VALUES (?,?,?,?,?,?,?,?,?,?,?,?)`, append(runArgs(r), pid)...)
	return err
}

// pidAlive reports whether a process with that pid runs on this host.
func pidAlive(pid int) bool {
	if pid <= 0 {
		return false
	}
	if pid == os.Getpid() {
		return true
	}
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}

// History lists a job's runs and skipped fires, newest first, at most
// limit (0: all).
func (s *Store) History(ctx context.Context, jobID string, limit int) ([]Run, error) {
	if limit <= 0 {
		limit = -1
	}
	rows, err := s.db.QueryContext(ctx, `SELECT `+runColumns+` FROM runs WHERE job_id = ? ORDER BY created_at DESC, rowid DESC LIMIT ?`, jobID, limit)
	if err != nil {
		return nil, fmt.Errorf("cron: history of %s: %w", jobID, err)
	}
	defer rows.Close()
	var out []Run
	for rows.Next() {
		var r Run
		var sched, start, end, created int64
		var status string
		if err := rows.Scan(&r.ID, &r.JobID, &sched, &start, &end, &status, &r.Error, &r.Output, &r.SessionID, &r.Delivery, &created); err != nil {
			return nil, fmt.Errorf("cron: history of %s: %w", jobID, err)
		}
		r.Status = Status(status)
		r.ScheduledAt, r.StartedAt, r.EndedAt, r.CreatedAt = fromMillis(sched), fromMillis(start), fromMillis(end), fromMillis(created)
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("cron: history of %s: %w", jobID, err)
	}
	return out, nil
}

// StartRun records a run beginning now (hermes cron run, outside the
// schedule).
func (s *Store) StartRun(ctx context.Context, jobID string, now time.Time) (Run, error) {
	r := Run{ID: NewID(), JobID: jobID, StartedAt: now, Status: StatusRunning, CreatedAt: now}
	if err := s.inTx(ctx, func(tx *sql.Tx) error { return insertRun(ctx, tx, r) }); err != nil {
		return Run{}, fmt.Errorf("cron: record run of %s: %w", jobID, err)
	}
	return r, nil
}

// FinishRun records how a run ended, and the job's last status.
func (s *Store) FinishRun(ctx context.Context, r Run) error {
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `UPDATE runs SET ended_at=?, status=?, error=?, output=?, session_id=?, delivery=? WHERE id=?`,
			millis(r.EndedAt), string(r.Status), r.Error, r.Output, r.SessionID, r.Delivery, r.ID); err != nil {
			return err
		}
		lastErr := r.Error
		if r.Status == StatusDeliveryFailed {
			lastErr = r.Delivery
		}
		_, err := tx.ExecContext(ctx, `UPDATE jobs SET last_run_at=?, last_status=?, last_error=? WHERE id=?`,
			millis(r.StartedAt), string(r.Status), lastErr, r.JobID)
		return err
	})
	if err != nil {
		return fmt.Errorf("cron: record end of run %s: %w", r.ID, err)
	}
	return nil
}

// running reports the job's run still going: marked running, started
// after since, by a process still alive. A run whose process died is
// marked failed on the way, so it does not hold the job back.
func (s *Store) running(ctx context.Context, tx *sql.Tx, jobID string, since, now time.Time) (string, bool, error) {
	rows, err := tx.QueryContext(ctx, `SELECT id, pid FROM runs WHERE job_id = ? AND status = 'running' AND started_at >= ?`, jobID, millis(since))
	if err != nil {
		return "", false, err
	}
	type row struct {
		id  string
		pid int
	}
	var all []row
	for rows.Next() {
		var r row
		if err := rows.Scan(&r.id, &r.pid); err != nil {
			rows.Close()
			return "", false, err
		}
		all = append(all, r)
	}
	rows.Close()
	for _, r := range all {
		if pidAlive(r.pid) {
			return r.id, true, nil
		}
		if _, err := tx.ExecContext(ctx, `UPDATE runs SET status='failed', ended_at=?, error=? WHERE id=?`, millis(now),
			fmt.Sprintf("the process running it (pid %d) stopped before the run ended", r.pid), r.id); err != nil {
			return "", false, err
		}
	}
	return "", false, nil
}

// AbandonRuns marks the runs still "running" that started before cut as
// failed: the process running them stopped (a crash, a kill) before they
// ended. It returns how many it marked.
func (s *Store) AbandonRuns(ctx context.Context, cut, now time.Time) (int, error) {
	var n int64
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE runs SET status='failed', ended_at=?, error='the process running it stopped before the run ended'
			WHERE status = 'running' AND started_at < ?`, millis(now), millis(cut))
		if err != nil {
			return err
		}
		n, err = res.RowsAffected()
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("cron: mark abandoned runs: %w", err)
	}
	return int(n), nil
}
