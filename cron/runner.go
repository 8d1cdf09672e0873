package cron

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"strings"
	"time"
)

// Executor runs a job's prompt in a fresh, unattended conversation and
// returns its answer. cron/apprun implements it over app.Runtime.
type Executor interface {
	Execute(ctx context.Context, job Job) (Outcome, error)
}

// Outcome is what a conversation run for a job produced.
type Outcome struct {
	Answer    string
	SessionID string
	// Denied lists the commands that needed an approval nobody could give
	// (and those refused outright): the run's status is then denied.
	Denied []string
}

// DefaultTimeout is a run's time limit when neither the job nor
// cron.timeout sets one.
const DefaultTimeout = 10 * time.Minute

// Runner runs one fire of a job: the conversation under its time limit,
// the output file, the delivery, and the history row that says how it
// ended.
type Runner struct {
	Store   *Store
	Exec    Executor
	Deliver *Deliverer
	Home    string
	// Timeout is a run's time limit unless the job has its own (default
	// DefaultTimeout).
	Timeout time.Duration
	// Now is the clock (default time.Now).
	Now func() time.Time
}

func (r *Runner) now() time.Time {
	if r.Now != nil {
		return r.Now()
	}
	return time.Now()
}

// RunNow runs a job at once, outside its schedule (hermes cron run),
// and returns the finished run.
func (r *Runner) RunNow(ctx context.Context, job Job) (Run, error) {
	run, err := r.Store.StartRun(ctx, job.ID, r.now())
	if err != nil {
		return Run{}, err
	}
	return r.Finish(ctx, job, run)
}

// Finish runs a started run of job to its end and records it. The
// returned error is the store's; how the run went is the Run's Status.
func (r *Runner) Finish(ctx context.Context, job Job, run Run) (Run, error) {
	limit := cmp.Or(job.Timeout, r.Timeout, DefaultTimeout)
	runCtx, cancel := context.WithTimeoutCause(ctx, limit, errTimeLimit)
	out, err := r.Exec.Execute(runCtx, job)
	timedOut := errors.Is(context.Cause(runCtx), errTimeLimit)
	cancel()
	run.SessionID = out.SessionID
	run.Output = OutputPath(r.Home, job.ID, run.ID)
	text := out.Answer
	switch {
	case timedOut:
		run.Status, run.Error = StatusTimeout, fmt.Sprintf("the run went past its time limit of %s and was stopped", limit)
	case err != nil:
		run.Status, run.Error = StatusFailed, err.Error()
	case len(out.Denied) > 0:
		run.Status, run.Error = StatusDenied, "needed an approval nobody was there to give: "+strings.Join(out.Denied, "; ")
	default:
		run.Status = StatusOK
	}
	if run.Status == StatusTimeout || run.Status == StatusFailed {
		text = fmt.Sprintf("%s\n\n[hermes cron: run %s of job %s: %s: %s]\n", text, run.ID, job.Name, run.Status, run.Error)
	}
	if werr := writeOutput(run.Output, text); werr != nil {
		run.Output = ""
		if run.Status == StatusOK || run.Status == StatusDenied {
			run.Status, run.Delivery = StatusDeliveryFailed, werr.Error()
		}
	} else if run.Status == StatusOK || run.Status == StatusDenied {
		r.deliver(ctx, job, &run, out.Answer)
	}
	run.EndedAt = r.now()
	if err := r.Store.FinishRun(context.WithoutCancel(ctx), run); err != nil {
		return run, err
	}
	return run, nil
}

var errTimeLimit = errors.New("cron: the run's time limit passed")

// deliver sends the answer; a failure turns an ok run into
// delivery_failed (a denied one stays denied, the delivery error noted).
func (r *Runner) deliver(ctx context.Context, job Job, run *Run, answer string) {
	target, err := ParseTarget(job.Deliver)
	dl := r.Deliver
	if dl == nil {
		dl = &Deliverer{}
	}
	desc := ""
	if err == nil {
		desc, err = dl.Deliver(ctx, target, Delivery{JobID: job.ID, JobName: job.Name, RunID: run.ID, Status: run.Status, Output: answer})
	}
	if err != nil {
		run.Delivery = err.Error()
		if run.Status == StatusOK {
			run.Status = StatusDeliveryFailed
		}
		return
	}
	run.Delivery = desc
}
