// Package agent is the agent loop: the only package that knows the turn
// lifecycle, as upstream Hermes documents it (Agent Loop Internals). An
// Agent takes a user message, builds (once per session) the system
// prompt, checks whether the context needs compressing, builds the API
// copy of the history (repaired so it follows the alternation rules), adds
// the ephemeral layers (budget warnings), makes an interruptible model
// call, and then either runs the requested tools and loops, or returns the
// final answer.
//
// Entry points: Chat (returns the final text), Run (returns a Result with
// every outcome: completed, failed, interrupted, partial, the exit reason,
// usage) and Stream (yields the turn's events as an iter.Seq2, the last
// one carrying the Result). Every way a turn can end is an ExitReason in
// Result, never only a log line; the Result's flags follow from it.
//
// Events: the loop, its tools and its subagents report progress as
// Events. The agent queues them and delivers them in order, one at a time,
// from a goroutine of its own, to Config.Observer (and to a Stream's
// caller), so a slow surface never holds up the loop; Run returns after
// its turn's last event (EventDone) was delivered. An approval prompt or
// an interactive tool waits until the events before it were delivered.
//
// Fallback: a Client that switches endpoints itself (provider.Chain)
// implements Router. It owns that state: the agent asks it which model is
// active and hears of switches and retries through the stream
// (llm.DeltaFallback, llm.DeltaRetry), which it turns into events.
//
// Storage: Config.Store records the session incrementally (the user
// message before the call, each tool result as it lands); *session.Store
// implements Store. The current session (a compression continues in a
// child session) and a context window learned from an overflow are agent
// state, read under its lock, never written back into Config.
//
// Concurrency: Run, Chat and Stream are safe for one goroutine at a time
// per Agent (a second concurrent turn gets ErrBusy). Interrupt may be
// called from any goroutine; it stops the model call, retry waits and
// running tools of the current turn, and nothing partial enters the
// history. Steer may be called from any goroutine too: it adds a text to
// the running turn, delivered with the next round's tool results, and a
// text the turn could not deliver comes back in Result.PendingSteer. The
// accessors (SessionID, History, Model, ContextLength) are safe from any
// goroutine.
package agent
