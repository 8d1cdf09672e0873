// Package cron runs prompts on a schedule: hermes cron, the cronjob
// tool, and the scheduler inside hermes gateway.
//
// Jobs and their history live in a SQLite database (Open, StorePath:
// $HERMES_HOME/cron/cron.db). A schedule is an interval ("30m", "every
// 5s", "every 2h"), a one-off ("in 30m", an ISO time), a time of day
// ("every day at 9am", "weekdays at 18:30") or a 5-field cron
// expression, optionally with its zone ("CRON_TZ=Europe/Paris 0 9 * *
// 1-5"), parsed by github.com/robfig/cron/v3 (ParseSchedule).
//
// What it promises:
//   - One scheduler per HERMES_HOME fires jobs: Scheduler.Run holds an
//     flock on $HERMES_HOME/cron/scheduler.lock; a second one waits and
//     takes over when the first stops or dies.
//   - A fire runs at most once, even with two schedulers on one store and
//     no lock: each is claimed by moving the job's next fire in one
//     transaction, conditional on the value it was read with.
//   - Nothing is skipped silently. A fire missed while no scheduler ran
//     runs once when the scheduler starts, if it is still within its
//     grace window (half the period, at least MinGrace, at most
//     MaxGrace); otherwise it is recorded as skipped with the reason. A
//     backlog collapses into one run and every other fire of it is
//     recorded as skipped; so is a fire that comes while the job's
//     previous run is still going.
//   - Every run ends with a status (Status): ok, failed, delivery_failed,
//     denied or timeout. A run's answer is always kept in its output file
//     (OutputPath), whatever the target, and a failed delivery is never
//     ok. An answer of exactly [SILENT] delivers nothing.
//   - Runs are unattended: the Executor (cron/apprun) opens a fresh
//     conversation whose dangerous commands are denied, the model told
//     why; a run that needed one is denied. Each run has a time limit.
//
// Concurrency: a Store is safe for concurrent use and may be shared by
// processes. A Scheduler's Run and Tick are for one goroutine; runs go
// on beside them, at most MaxParallel at once.
package cron
