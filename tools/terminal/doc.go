// Package terminal holds the built-in "terminal" and "process" tools: shell
// commands run on the Terminal's backend (package backend): by default
// this machine, as real child processes (backend.Local); Options.Backend
// gives another (a remote host over SSH). The tools are the same on every
// backend: timeouts, the working directory per task, head/tail capping,
// the result's form and the process table are theirs.
//
// Contract (the process details are the local backend's; a remote
// backend states its own in its package):
//   - Each command runs under bash -c (sh when bash is missing) in its own
//     process group. A timeout or a cancelled context kills the whole group,
//     and a foreground command's result kills what it left running (`cmd
//     &`): no process of it outlives its result (background:true is for
//     what must). Under a sandbox that limits processes (see package
//     sandbox, Processes) that is every process in the command's cgroup,
//     those that left its process group or session among them, and a
//     fork bomb stops at the limit.
//   - A command's standard input is empty (/dev/null) and its output is
//     captured through pipes: the terminal hermes runs in is never one of
//     its standard streams (under the sandbox it is not its controlling
//     terminal either: see package sandbox).
//   - The working directory persists per task id: a command that runs `cd`
//     moves the task's directory for the next call. The directory is read
//     back from the shell through a side file written by an EXIT trap, so it
//     works whatever the command prints and however it exits (on every
//     backend: backend.Exit.Dir).
//   - The result always states the exit code and gives stdout and stderr
//     apart, each capped to a head and a tail around a truncation marker;
//     the middle is read and dropped as it comes, so hermes' memory does
//     not grow with a command's output (a 1 GB print costs MaxOutput).
//   - background:true starts a long-lived process and returns its id at
//     once; the process tool lists, polls, reads, waits for and kills them.
//   - The terminal tool implements tool.Commander, so the executor's
//     dangerous-command check sees every command before it runs.
//   - With Options.Sandbox set, every command, foreground and background,
//     runs under that policy (sandbox.Policy.Wrap); a policy that must be
//     enforced and cannot be turns each command into an error result, and
//     one enforced partly or not at all is said once, in the first
//     command's result. Without it commands run unsandboxed.
//   - A command's environment leaves out the inherited variables that
//     hold secrets, by their name or by the shape of their value (a JWT
//     in SESSION_JWT: redact.SecretVariable), unless
//     Options.EnvPassthrough names them.
//
// Concurrency: a Terminal is safe for concurrent use. Its terminal tool is
// tool.Sequential (commands share a working directory); the process tool is
// tool.Parallel. Close kills every background process still running.
package terminal
