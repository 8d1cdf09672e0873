// Package shellhook turns the shell hooks of config.yaml
// (hooks.pre_tool_call and hooks.post_tool_call: entries of matcher,
// command and timeout) into tool.PreHook and tool.PostHook functions for
// the tool executor.
//
// A hook runs its command with `sh -c` in its own process group, with a
// JSON payload on stdin:
//
//	{"hook":"pre_tool_call","tool":"terminal","call_id":"...","args":{...},
//	 "task_id":"...","session_id":"...","cwd":"..."}
//
// and, for post_tool_call, also "result", "is_error", "status" and
// "duration_ms". The same payload carries "hook_event_name", "tool_name"
// and "tool_input", the names Claude Code and Cursor hooks read, so their
// scripts work unchanged.
//
// The matcher is a regular expression that must match the whole tool name
// ("terminal" does not match "terminal_process"; use "terminal.*"); an
// empty matcher matches every tool. A matcher that does not compile is a
// configuration error, reported when the hooks are built.
//
// pre_tool_call decisions:
//   - exit 0 with empty stdout: the call goes on.
//   - exit 0 with a JSON object on stdout: {"decision":"block","reason":...}
//     or {"action":"block","message":...} blocks the call with that reason;
//     {"args":{...}} (or {"action":"modify","args":{...}}, or
//     {"decision":"modify","tool_input":{...}}) replaces the call's
//     arguments. Stdout that is not a JSON object is ignored with a warning:
//     the exit status already said "go on".
//   - exit 2: blocks the call; the reason is the JSON reason when stdout
//     has one, else stderr, else stdout.
//   - any other failure (another non-zero exit, a command that cannot
//     start, the timeout, an interrupt) blocks the call too, with a reason
//     naming the hook. A pre_tool_call hook is a gate: when the gate itself
//     is broken the safe answer is "no", and the model reads why. This is
//     stricter than upstream Hermes, which fails open unless an entry sets
//     fail_closed; Hook.FailOpen restores the upstream behaviour per hook
//     (a warning, and the call goes on). An interrupt always blocks.
//
// post_tool_call hooks cannot block (the call already ran). Exit 0 with
// {"result":"..."} on stdout replaces the result the model reads; any other
// output is ignored. A failing or timed-out post hook leaves the result as
// it was and reports a warning. Post hooks do not start once the turn has
// been interrupted, and a running one is killed: an interrupt must not
// wait for hooks.
//
// A hook's timeout (default 30 s) kills its whole process group, so a
// script that started background helpers leaves nothing behind. Warnings
// go to Options.OnWarning (the CLI shows them as warning events), or to
// the default slog logger when it is nil: nothing is dropped silently.
//
// Concurrency: the returned hooks are safe for concurrent use; the
// executor calls them from several tool goroutines at once.
package shellhook
