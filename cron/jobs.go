package cron

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"time"
)

// Job is a scheduled prompt.
type Job struct {
	ID       string
	Name     string
	Schedule Schedule
	Prompt   string
	Skills   []string
	// Deliver is where the answer goes (ParseTarget); "local" keeps it in
	// the output file only.
	Deliver string
	// Model, Provider, BaseURL and APIKey choose the model endpoint
	// (empty: config.yaml's). APIKey is stored in the 0600 database and
	// never printed.
	Model, Provider, BaseURL, APIKey string
	Toolsets                         []string
	Workdir                          string
	// Timeout overrides cron.timeout for this job (0: the default).
	Timeout time.Duration
	// Repeat is how many fires the job runs (0: forever); Remaining how
	// many are left.
	Repeat, Remaining int
	// Enabled is false while the job is paused or done.
	Enabled bool
	// State is scheduled, paused or completed.
	State      string
	NextRunAt  time.Time // zero when it will not fire again
	LastRunAt  time.Time
	LastStatus Status
	LastError  string
	CreatedAt  time.Time
}

// Job states.
const (
	StateScheduled = "scheduled"
	StatePaused    = "paused"
	StateCompleted = "completed"
)

// NewID returns a fresh random id.
func NewID() string {
	var b [6]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

const jobColumns = `id, name, schedule, kind, spec, prompt, skills, deliver, model, provider, base_url, api_key,
	toolsets, workdir, timeout_ms, repeat, remaining, enabled, state, next_run_at, last_run_at, last_status, last_error, created_at`

type scanner interface{ Scan(dest ...any) error }

func scanJob(r scanner) (Job, error) {
	var j Job
	var sched, kind, spec, skills, toolsets, status string
	var timeout, next, last, created int64
	var enabled int
	if err := r.Scan(&j.ID, &j.Name, &sched, &kind, &spec, &j.Prompt, &skills, &j.Deliver, &j.Model, &j.Provider, &j.BaseURL, &j.APIKey,
		&toolsets, &j.Workdir, &timeout, &j.Repeat, &j.Remaining, &enabled, &j.State, &next, &last, &status, &j.LastError, &created); err != nil {
		return Job{}, err
	}
	s, err := ScheduleFromSpec(sched, Kind(kind), spec)
	if err != nil {
		return Job{}, fmt.Errorf("job %s: %w", j.ID, err)
	}
	j.Schedule, j.Skills, j.Toolsets = s, splitList(skills), splitList(toolsets)
	j.Timeout = time.Duration(timeout) * time.Millisecond
	j.Enabled, j.LastStatus = enabled != 0, Status(status)
	j.NextRunAt, j.LastRunAt, j.CreatedAt = fromMillis(next), fromMillis(last), fromMillis(created)
	return j, nil
}

func splitList(s string) []string {
	var out []string
	for _, x := range strings.Split(s, ",") {
		if x = strings.TrimSpace(x); x != "" {
			out = append(out, x)
		}
	}
	return out
}

func (j *Job) check() error {
	switch {
	case strings.TrimSpace(j.Name) == "":
		return errors.New("a job needs a name")
	case strings.TrimSpace(j.Prompt) == "" && len(j.Skills) == 0:
		return errors.New("a job needs a prompt (or a skill to run)")
	case j.Schedule.Kind == "":
		return errors.New("a job needs a schedule")
	case j.Repeat < 0:
		return fmt.Errorf("repeat %d: a whole number, 0 for forever", j.Repeat)
	}
	if _, err := ParseTarget(j.Deliver); err != nil {
		return err
	}
	for _, x := range append(append([]string(nil), j.Skills...), j.Toolsets...) {
		if strings.Contains(x, ",") {
			return fmt.Errorf("%q: a name may not hold a comma", x)
		}
	}
	return nil
}

// Add stores a new job (its ID is given when empty) and sets its first
// fire after now. A name another job has is refused.
func (s *Store) Add(ctx context.Context, j Job, now time.Time) (Job, error) {
	if j.ID == "" {
		j.ID = NewID()
	}
	if j.Deliver == "" {
		j.Deliver = "local"
	}
	if err := j.check(); err != nil {
		return Job{}, fmt.Errorf("cron: add %q: %w", j.Name, err)
	}
	j.Enabled, j.State, j.CreatedAt = true, StateScheduled, now
	j.Remaining = j.Repeat
	j.NextRunAt = j.Schedule.First(now)
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		var n int
		if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM jobs WHERE name = ? OR id = ?`, j.Name, j.Name).Scan(&n); err != nil {
			return err
		}
		if n > 0 {
			return fmt.Errorf("a job named %q exists already", j.Name)
		}
		_, err := tx.ExecContext(ctx, `INSERT INTO jobs (`+jobColumns+`) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)`, jobArgs(j)...)
		return err
	})
	if err != nil {
		return Job{}, fmt.Errorf("cron: add %q: %w", j.Name, err)
	}
	return j, nil
}

func jobArgs(j Job) []any {
	enabled := 0
	if j.Enabled {
		enabled = 1
	}
	return []any{j.ID, j.Name, j.Schedule.Text, string(j.Schedule.Kind), j.Schedule.Spec(), j.Prompt, strings.Join(j.Skills, ","), j.Deliver,
		j.Model, j.Provider, j.BaseURL, j.APIKey, strings.Join(j.Toolsets, ","), j.Workdir, j.Timeout.Milliseconds(), j.Repeat, j.Remaining,
		enabled, j.State, millis(j.NextRunAt), millis(j.LastRunAt), string(j.LastStatus), j.LastError, millis(j.CreatedAt)}
}

// Job returns the job an id or a unique name refers to (ErrNotFound).
func (s *Store) Job(ctx context.Context, ref string) (Job, error) {
	j, err := scanJob(s.db.QueryRowContext(ctx, `SELECT `+jobColumns+` FROM jobs WHERE id = ?
		UNION ALL SELECT `+jobColumns+` FROM jobs WHERE name = ? AND id != ? LIMIT 1`, ref, ref, ref))
	if errors.Is(err, sql.ErrNoRows) {
		return Job{}, fmt.Errorf("cron: %q: %w (hermes cron list shows the jobs)", ref, ErrNotFound)
	}
	if err != nil {
		return Job{}, fmt.Errorf("cron: read job %q: %w", ref, err)
	}
	return j, nil
}

// Jobs lists every job, oldest first.
func (s *Store) Jobs(ctx context.Context) ([]Job, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT `+jobColumns+` FROM jobs ORDER BY created_at, id`)
	if err != nil {
		return nil, fmt.Errorf("cron: list jobs: %w", err)
	}
	defer rows.Close()
	var out []Job
	for rows.Next() {
		j, err := scanJob(rows)
		if err != nil {
			return nil, fmt.Errorf("cron: list jobs: %w", err)
		}
		out = append(out, j)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("cron: list jobs: %w", err)
	}
	return out, nil
}

// Update applies edit to the stored job ref names and saves it, in one
// transaction. A changed schedule gets its next fire from now; the id and
// creation time never change.
func (s *Store) Update(ctx context.Context, ref string, now time.Time, edit func(*Job) error) (Job, error) {
	var out Job
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		j, err := scanJob(tx.QueryRowContext(ctx, `SELECT `+jobColumns+` FROM jobs WHERE id = ?
			UNION ALL SELECT `+jobColumns+` FROM jobs WHERE name = ? AND id != ? LIMIT 1`, ref, ref, ref))
		if errors.Is(err, sql.ErrNoRows) {
			return fmt.Errorf("%q: %w", ref, ErrNotFound)
		}
		if err != nil {
			return err
		}
		before := j
		if err := edit(&j); err != nil {
			return err
		}
		j.ID, j.CreatedAt = before.ID, before.CreatedAt
		if err := j.check(); err != nil {
			return err
		}
		if j.Schedule.Spec() != before.Schedule.Spec() || j.Schedule.Kind != before.Schedule.Kind {
			j.NextRunAt = j.Schedule.First(now)
		}
		if j.Repeat != before.Repeat {
			j.Remaining = j.Repeat
		}
		if j.Name != before.Name {
			var n int
			if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM jobs WHERE (name = ? OR id = ?) AND id != ?`, j.Name, j.Name, j.ID).Scan(&n); err != nil {
				return err
			}
			if n > 0 {
				return fmt.Errorf("a job named %q exists already", j.Name)
			}
		}
		args := jobArgs(j)
		_, err = tx.ExecContext(ctx, `UPDATE jobs SET name=?, schedule=?, kind=?, spec=?, prompt=?, skills=?, deliver=?, model=?, provider=?,
			base_url=?, api_key=?, toolsets=?, workdir=?, timeout_ms=?, repeat=?, remaining=?, enabled=?, state=?, next_run_at=?
			WHERE id = ?`, append(args[1:20], j.ID)...)
		out = j
		return err
	})
	if err != nil {
		return Job{}, fmt.Errorf("cron: update %q: %w", ref, err)
	}
	return out, nil
}

// Pause stops a job firing until Resume; its fires meanwhile are not
// owed.
func (s *Store) Pause(ctx context.Context, ref string, now time.Time) (Job, error) {
	return s.Update(ctx, ref, now, func(j *Job) error {
		if j.State == StateCompleted {
			return errors.New("the job is completed; edit its schedule to run it again")
		}
		j.Enabled, j.State = false, StatePaused
		return nil
	})
}

// Resume lets a paused job fire again, from its next fire after now.
func (s *Store) Resume(ctx context.Context, ref string, now time.Time) (Job, error) {
	return s.Update(ctx, ref, now, func(j *Job) error {
		if j.State == StateCompleted {
			return errors.New("the job is completed; edit its schedule to run it again")
		}
		j.Enabled, j.State = true, StateScheduled
		if j.NextRunAt.IsZero() || j.NextRunAt.Before(now) {
			j.NextRunAt = j.Schedule.First(now)
			if j.Schedule.Kind != Once {
				j.NextRunAt = j.Schedule.Next(now)
			}
		}
		return nil
	})
}

// Remove deletes a job and its history.
func (s *Store) Remove(ctx context.Context, ref string) (Job, error) {
	j, err := s.Job(ctx, ref)
	if err != nil {
		return Job{}, err
	}
	err = s.inTx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `DELETE FROM runs WHERE job_id = ?`, j.ID); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `DELETE FROM jobs WHERE id = ?`, j.ID)
		return err
	})
	if err != nil {
		return Job{}, fmt.Errorf("cron: remove %q: %w", ref, err)
	}
	return j, nil
}
