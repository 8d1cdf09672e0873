// Package agent is the agent loop: the only package that knows the turn
// lifecycle of the seed. An Agent takes a user message, builds (once per
// session) the system prompt, checks whether the context needs
// compressing, builds the API copy of the history (repaired so it follows
// the alternation rules), adds the ephemeral layers (budget warnings),
// makes an interruptible model call, and then either runs the requested
// tools and loops, or returns the final answer.
//
// Entry points: Chat (returns the final text) and Run (returns a Result
// with every outcome: completed, failed, interrupted, partial, the exit
// reason, usage). Every way a turn can end is a value in Result, never only
// a log line. Progress reaches callers as Events through Config.Observer.
//
// Concurrency: Run and Chat are safe for one goroutine at a time per Agent
// (a second concurrent Run returns ErrBusy). Interrupt may be called from
// any goroutine; it stops the model call, retry waits and running tools of
// the current turn, and nothing partial enters the history.
package agent
