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
// payloads, aliases, cd). Commands carried in another command's options
// are judged as the payload they run, read the way the carrier reads
// its options (getopt_long's clusters, attached values and unique
// abbreviations): su and runuser (-c, --command, --session-command, the
// last one winning; -s; the arguments after the user; runuser -u),
// env -S in every spelling, split as env splits it, and shells with
// options between -c and the command, which gets the arguments after it
// as $0, $1, ... So are the programs that launch a command: sudo, doas,
// pkexec and run0 (their options clustered, sudo's NAME=value words
// among them), flock (FILE CMD, FILE -c CMD), unshare, setpriv, nsenter,
// sg (GROUP [-c] CMD), script (-c CMD, -- CMD), watch, systemd-run (and
// the ExecStart=-style properties it sets), screen (the new session's
// command; -X stuff and -X screen), tmux (new-session, new-window,
// split-window, respawn-*, run-shell, if-shell, display-popup,
// pipe-pane, bind-key, set-hook, command names abbreviated as tmux
// allows, ; between commands), GNU parallel (its command template
// filled with each ::: value, or the values as command lines), and
// keys typed into a terminal (tmux send-keys, screen -X stuff), whose
// text is judged as a command line, keys that edit the line asking. A
// launcher that runs a shell reading its standard input (at and batch;
// su, sudo -s, script, unshare and nsenter with no command; newgrp; sg
// with no command) has what it is fed judged like sh's, and nsenter's
// shell in another process's namespaces asks. An option a launcher's
// table does not know makes every later word that could start the
// command be judged as its start. A name only known when it runs, inline interpreter
// code, shells fed code by a heredoc or find -exec sh -c, destructive
// git, git config writing a shell alias or a command setting, file wipes
// and writes to credential stores ask. Text is normalised first
// (fullwidth and look-alike letters, invisible characters, carriage
// returns), keeping a # the shell reads inside a word (after a carriage
// return or a non-breaking space) from becoming a comment. A command the
// shell cannot parse is refused (hardline): what it runs cannot be
// known, and a shell runs the lines before the error; so are carriers
// nested deeper than the check follows (six levels); text that is only
// guessed to be a command (decoded data, strings in interpreter code)
// falls back to the older lexer and asks when anything in it looks
// dangerous. Words that are only data (a grep pattern, an echo into a
// file, env -S/bin/echo reboot) do not trigger, nor does signalling
// processes by name (pkill -f nginx) or listing signals (killall -l);
// a pkill pattern matching every process is kill -1. CheckIn also knows
// the writable roots (the workspace, the sandbox's other writable
// trees): a file deleted inside one is never a system file, wherever the
// root lies. The result matches two tables:
// hardline patterns, refused whatever the settings (rm -rf /, mkfs, dd to a
// disk, fork bombs, shutdown, kill -1, unparsable text, ...), and dangerous patterns, which
// need approval (recursive rm, chmod 777, curl | sh, git push --force,
// DROP TABLE, writes to /etc or ~/.ssh, ...). Each pattern has a stable
// key; approvals and the command_allowlist remember keys, not commands.
//
// JavaScript that browser_console would evaluate in a page is no shell
// command: every such call is the dangerous pattern browser_script, asked
// about like any other.
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
