// Package docker is the backend of terminal.backend: docker: a
// conversation's commands and files live in a container of
// terminal.docker.image, driven through the docker CLI
// (terminal.docker.binary; podman answers the same commands).
//
// Lifecycle:
//   - One long-lived container per conversation, made at its first
//     command or file operation outside the workspace, named
//     hermes-<session> and labelled hermes.session=<session> (the
//     conversation's session, Options.Conversation: hermes maps a
//     compression's child session and a subagent's to the session they
//     come from, so they work in the same container), with its
//     creation time, lifetime and persist flag as labels. Its command is
//     sleep under the engine's init, which reaps orphaned processes.
//   - A later process finds it again (`ps --filter
//     label=hermes.session=<id>`), starts it if it stopped, and uses it;
//     two processes starting one conversation at once share one
//     container (the engine refuses the second name).
//   - Close (the end of the workspace) and EndSession (the end of a
//     conversation) remove it, unless Options.Persist leaves it running.
//     A container that vanished (docker rm) is replaced, and that is said.
//   - Orphan reaper: the start-up of the backend's first container (the
//     next one, while the engine does not answer) removes
//     labelled containers whose creation plus lifetime has passed, but
//     persisted ones, those of its own conversations and those of
//     conversations another process still holds (Options.InUse), and
//     says which.
//
// What is enforced in the container (the local Landlock sandbox does not
// apply there): --cap-drop ALL with only Capabilities added back,
// --security-opt no-new-privileges, --pids-limit, --memory, --cpus, a
// tmpfs /tmp, --network as configured (none by default; memory or cpus
// "0" leaves that limit out), and the
// workspace bind-mounted at its own path, read-only in read-only mode.
// Short of full access, the paths the sandbox keeps read-only in the
// workspace (.git/hooks, .git/config, .hermes) are mounted read-only
// over themselves, and the credentials it hides there (~/.ssh when the
// workspace is the home directory) are covered by an empty tmpfs or
// /dev/null.
//
// Commands run with docker exec under the image's bash (sh without it)
// in the directory the terminal gives (the task's, which a `cd` moves:
// the final directory comes back on stderr behind a marker carrying the
// command's random id, taken off before the output is shown). The exit
// code, stdout and stderr come back apart. Each command carries its id
// in HERMES_CMD_ID: when it ends, what it left running in the container
// is killed; a timeout or an interrupt kills it and all it started
// inside the container with a second exec (killing the CLI client alone
// would leave them running). A process that clears its environment, or
// whose environment the command's user may not read (another user's),
// escapes both. A background command (Start) lives until it exits or is
// killed the same way; its output reaches its log as it comes.
//
// Only what is named reaches the container's environment: the pager
// settings, Options.Env, the command's Env, and the variables
// Options.ForwardEnv names, passed as `-e NAME` so that their values
// travel in the CLI's environment and never on a command line. The
// agent's other variables, secrets among them, stay out.
//
// Files: paths in the workspace go through the bind mount (this
// machine's file system, the sandbox's read and write rules); others,
// and links leading out of the workspace, through docker exec of the
// image's stat, cat, mkdir, mv, rm and chmod, with paths as arguments of
// fixed scripts, never inside a shell command line.
//
// Failures are errors that say what to do: ErrNoBinary, ErrDaemon,
// ErrImage; the terminal shows them as the command's result, and the
// first of each is also said to the user (Options.Warn).
//
// Concurrency: a Backend is safe for concurrent use; a conversation's
// container is found or made once, whatever the number of commands
// asking for it.
package docker
