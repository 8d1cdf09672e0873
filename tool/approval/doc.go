// Package approval is the dangerous-command check and approval policy:
// it implements tool.Approver for the executor, which calls it before any
// tool.Commander (terminal) runs a shell command.
//
// Detection (Check) finds what a command would run, not how it is
// spelled: the command is parsed with mvdan.cc/sh (the syntax tree of
// lists, pipelines, substitutions, heredocs, here-strings, functions and
// subshells), every simple command is visited in the order the shell
// would run it, and words are expanded where the command itself makes
// them known (X=rm; $X, brace expansion, $'...', printf and base64
// payloads, aliases, cd). A name only known when it runs, inline
// interpreter code, shells fed code by a heredoc or find -exec sh -c,
// destructive git, file wipes and writes to credential stores ask. Text
// is normalised first (fullwidth and look-alike letters, invisible
// characters, carriage returns); a command that does not parse falls
// back to the older lexer and asks when anything in it looks dangerous.
// Words that are only data (a grep pattern, an echo into a file) do not
// trigger. The result matches two tables:
// hardline patterns, refused whatever the settings (rm -rf /, mkfs, dd to a
// disk, fork bombs, shutdown, kill -1, ...), and dangerous patterns, which
// need approval (recursive rm, chmod 777, curl | sh, git push --force,
// DROP TABLE, writes to /etc or ~/.ssh, ...). Each pattern has a stable
// key; approvals and the command_allowlist remember keys, not commands.
//
// Policy, in order: hardline refuse; mode "off" or yolo allow; allowlisted
// or session-approved keys allow; otherwise ask the user, and deny when
// nobody can answer (no Ask callback), when the answer does not come in
// time, or when asking fails. Denials are errors whose text tells the model
// what happened and what to do.
//
// Concurrency: an Approver is safe for concurrent use. Session approvals
// are remembered per tool.ApprovalRequest.SessionID.
package approval
