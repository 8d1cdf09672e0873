// Package temporal runs batch prompts on Temporal: each prompt is a
// workflow, each model call and each tool call an activity with its own
// timeout, heartbeat and retries, so a prompt survives the loss of the
// worker running it and continues on another from its last completed
// activity. `hermes batch --engine temporal` submits the workflows (an
// Engine) and writes the trajectories as they finish, exactly as the
// local engine does; `hermes batch worker` runs a Worker on any machine.
// The command line links this package only when built with -tags
// temporal: the SDK more than doubles the binary (21 to 53 MB: its
// reflection keeps every exported method) and its start-up time.
//
// # How the agent loop runs in a workflow
//
// A workflow must be deterministic: replaying its history has to make the
// same decisions. The agent loop is not written for that (it calls the
// model on a goroutine of its own, runs tools on a pool, reads the
// clock), and this package does not rewrite it. Instead the loop is
// replayed over recorded results:
//
//   - The workflow keeps a journal: the result of every model call and
//     every tool call made so far (activity results, so in its history).
//   - A planning step, a local activity, runs the real agent loop
//     (app.Runtime.ReplayAgent: the same budget, guardrails, repairs and
//     budget warnings as any run) with a model client and tools that
//     answer from the journal. The first model call or tool call the
//     journal has no result for stops the replay; that call is the
//     workflow's next step. A replay that reaches the end of the turn
//     returns the outcome.
//   - The workflow runs that step as an activity (Model: one call through
//     the worker's provider chain; Tool: app.Runtime.CallTool, with the
//     worker's hooks, dangerous-command check and sandbox), appends the
//     result to the journal and plans again.
//
// So the loop's decisions are made by the loop's own code, every effect
// runs once as an activity, and a worker that dies takes nothing with it
// but the activity it was running: the next worker replays the history
// (the planning steps' results are recorded as markers and are not run
// again) and retries that activity. A completed tool call is never run
// again. Each planning step re-runs the loop from the start over the
// journal, in memory: microseconds per recorded step.
//
// Tool calls of one model reply run one after another, in call order,
// even those the local engine would run in parallel: one order the
// executor allows, and one that does not depend on timing.
//
// Each model request is fingerprinted in the journal; a replay whose
// request differs from the recorded one (workers configured with
// different agent settings, another hermes version) fails the workflow
// with an error saying so, rather than mixing two conversations.
//
// What does not carry over to another worker: the prompt's workspace is
// a directory on the worker's machine (relative paths resolve against the
// worker's current directory), so a prompt that moves to another machine
// finds its files only when the workers share that directory; the
// terminal's per-task state (a cd) and the todo list are rebuilt empty.
// Context compression does not run under this engine (its summary call
// is not an activity); prompts stay within the context window or fail
// with the provider's overflow error.
//
// Every activity's input and result is a payload of the workflow's
// history, which the server caps (2 MB per payload by default): a
// conversation that outgrows it fails its workflow with the server's
// error, recorded in errors.jsonl.
//
// The history holds prompts, model replies and tool results, never keys:
// each worker calls the model with its own configuration and keys; the
// submitter's --model, --max-turns and --reasoning-effort travel in the
// task.
package temporal
