// Package batch runs a dataset of prompts through the agent and saves
// each one's conversation as a training trajectory, in upstream Hermes'
// formats (batch_runner.py): ShareGPT lines in trajectories.jsonl and a
// statistics.json summing them.
//
// Every prompt runs in its own workspace and session, built with the
// public runtime (app.New, source "batch"), under the sandbox, with
// nobody to approve a dangerous command (it is denied; ApplyPolicy keeps
// config.yaml from turning approvals off), without memory or context
// files unless asked (they would leak between prompts), with the image
// of its dataset line (loaded where the dataset is), and with the
// toolsets a Distribution samples for it (reproducibly: the same seed and
// index give the same toolsets).
//
// # Files of a run (data/<run>/)
//
//   - trajectories.jsonl: one Entry per prompt whose turn ran to an end,
//     appended and synced to disk before the prompt counts as done. It is
//     the checkpoint: a resumed run reads it back, cuts a torn last line
//     (a crash in the middle of a write), checks it against the dataset
//     and runs only the prompts it lacks, so no prompt is written twice.
//   - errors.jsonl: prompts that could not run (a bad line, an image
//     that cannot be read or a model that cannot see it, a runtime that
//     could not be built); --resume tries them again.
//   - checkpoint.json: the indices done, rewritten as the run goes (at
//     most once a second) for people and tools; never what resume trusts.
//   - statistics.json: the sums over every trajectory of the run.
//   - workspaces/<index>/: each prompt's workspace, removed when it ends
//     unless kept.
//
// A lock file keeps a second process from writing the same run.
//
// # Engines
//
// Local runs prompts in this process, Workers at a time. The Temporal
// engine (package batch/temporal) runs each as a durable workflow on any
// number of worker machines; the runner and its files are the same.
//
// Concurrency: Run owns its run directory; Engine.Run is called from up
// to Workers goroutines at once.
package batch
