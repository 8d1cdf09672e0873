package docker

// script is what every command runs as, under the container's shell:
// $1 is the command line, $2 the directory it starts in, $3 its id (also
// in HERMES_CMD_ID, which every process it starts inherits), $4 "cwd"
// when the final directory is wanted (a foreground command). The command
// runs through eval so that nothing in it (a stray brace, an `exit`) can
// escape the wrapper. An EXIT trap, which runs however the command ends,
// writes the final directory to stderr behind a marker naming the
// command's id (taken off before anyone reads stderr), then kills what
// the command left running (`cmd &`): every other process whose
// environment carries its id. The trap keeps the command's exit status.
const script = `__hermes_cmd=$1; __hermes_id=$3; __hermes_cwd=$4
cd -- "$2" 2>/dev/null || printf 'hermes: cannot cd to %s; running in %s\n' "$2" "$PWD" >&2
set --
trap '__hermes_rc=$?; [ -n "$__hermes_cwd" ] && printf "\n__HERMES_CWD_%s=%s\n" "$__hermes_id" "$PWD" >&2; unset HERMES_CMD_ID
__hermes_sweep_id=$__hermes_id; ` + sweep + `
exit $__hermes_rc' EXIT
eval "$__hermes_cmd"`

// killScript kills every process of the command whose id is $1: those
// whose environment carries it (the wrapper shell and all it started,
// also what left its process group or session). A grep reads every
// process's environment; a process that cleared its environment escapes.
const killScript = `unset HERMES_CMD_ID
__hermes_sweep_id=$1; ` + sweep + `
exit 0`

// sweep is the shell code that kills every process but this shell whose
// environment carries HERMES_CMD_ID=$__hermes_sweep_id. It reads /proc
// again until a pass after the first kills nothing (at most five): a
// process caught in the middle of an exec shows an empty environment for
// that moment, and a process forked as the first pass ran was not in its
// list.
const sweep = `__hermes_pass=0; while [ $__hermes_pass -lt 5 ]; do __hermes_killed=
for __f in $(grep -ls "HERMES_CMD_ID=$__hermes_sweep_id" /proc/[0-9]*/environ 2>/dev/null); do
__p=${__f#/proc/}; __p=${__p%/environ}; [ "$__p" = "$$" ] || { kill -9 "$__p" 2>/dev/null && __hermes_killed=1; }; done
__hermes_pass=$((__hermes_pass+1)); [ $__hermes_pass -ge 2 ] && [ -z "$__hermes_killed" ] && break; done`

// probeScript prints the container user's home and where bash is ("" for
// none: commands then run under sh).
const probeScript = `printf '%s\n%s\n' "$HOME" "$(command -v bash 2>/dev/null)"`
