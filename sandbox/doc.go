// Package sandbox is the safety boundary around what the agent runs: a
// Policy says which paths a command may write, which it may not even
// read, and whether it may open network connections; the kernel enforces
// it for every command the terminal tool starts, and the file tools check
// the same Policy in process before they touch a path.
//
// Modes (sandbox.mode, --sandbox):
//   - read-only: commands read what they may and write nothing; the
//     network is off unless sandbox.network says otherwise.
//   - workspace-write (the default): the workspace (the git root, else the
//     working directory), /tmp, $TMPDIR and sandbox.writable_roots are
//     writable, except .git/hooks, .git/config and .hermes inside them;
//     everything else is read-only.
//   - full-access: no sandbox. Only this mode lifts it; --yolo never does.
//
// Network (sandbox.network, Policy.Network):
//   - off: an empty network namespace, and no TCP through Landlock.
//   - allowlist (the default in workspace-write): the command's network
//     namespace holds loopback alone, where a proxy listens; the proxy
//     (package netproxy) runs in hermes, dials out from the host's
//     namespace and lets through only the hosts of Policy.NetworkAllow:
//     netproxy.Defaults (the package registries and forges) and
//     sandbox.network.allow. Another domain is refused with a message
//     saying how to allow it, or, through Policy.NetworkAsk, asked about.
//     HTTP_PROXY, HTTPS_PROXY, ALL_PROXY (socks5h), NO_PROXY (loopback)
//     and their lower-case forms point at the proxy; a command that
//     ignores them reaches nothing: no route but loopback, no DNS. The
//     proxy lives as long as the command's own process; what it leaves
//     running in the background loses the network then. Without a network
//     namespace the allowlist cannot be held, and the network is off.
//   - on: the host's network.
//
// In every mode short of full-access the agent's own keys and the user's
// credentials (HERMES_HOME and the homes sharing its tree: a profile's
// base home and the other profiles; ~/.ssh, cloud and package-registry
// credential files) can be neither read nor written by a command, and the file tools
// refuse them too, so the agent can never change its own safety settings.
// The sockets of daemons that would act for a command outside the sandbox
// (docker, systemd, the session bus, an X display, ssh-agent) are hidden
// the same way, and so are the sockets other programs keep in the
// temporary directories and extra writable roots (a tmux or screen
// server, whose send-keys would type into the user's terminal; an
// ssh-agent; any socket in such a root or one directory down): the
// namespaces and Landlock do not cover connecting to a pathname socket.
// The project's own sockets in the workspace stay reachable.
//
// # Enforcement (Linux)
//
// Policy.Wrap makes an *exec.Cmd start as this program re-executed with
// a hidden first argument: the helper. The program's main (and TestMain
// of tests that start sandboxed commands) calls MaybeRunHelper first; in
// the helper it applies the policy to itself and executes the command in
// its place, so the multi-threaded parent is never restricted and the
// command's process is the one the caller started (same pid, process
// group, cancellation).
//
// A Runner (Policy.NewRunner; a workspace keeps one for its terminal and
// MCP servers) starts no program per command. One helper, the zygote,
// serves the Runners: started once, by the first Probe, in a user and a
// mount namespace of its own. For each Runner it opens a lane, a thread
// of its own that takes a mount namespace (and, network off or allowlist,
// a network namespace) of its own, mounts the policy's view of the file
// system, applies Landlock, the seccomp filters and the capability drop
// to itself once, and starts every command of that Runner with fork and
// exec, so that each inherits all of it and costs no start of this
// program; a new Runner costs a thread, not a process. Hermes sends each
// command (argv, environment, directory, its standard streams and extra
// files as descriptors) over the lane's socket pair; the lane starts it
// in a session of its own as a child of hermes (CLONE_PARENT), which
// waits for it, cancels it and reads its exit status as for any child.
// In allowlist mode the lane makes each command a proxy listener of its
// own, served by hermes until the command's wait returns.
//
// The zygote's main thread lies outside every Landlock domain and the
// zygote is not dumpable: a command can neither signal its process, nor
// trace it, nor open its descriptors. Commands of different lanes lie in
// different Landlock domains and mount namespaces: one can neither signal
// another's processes nor write its writable roots. A lane's thread
// shares its commands' domain; a seccomp filter keeps their signals from
// it (kill, tkill, tgkill, rt_sigqueueinfo, rt_tgsigqueueinfo and
// pidfd_open aimed at it or the zygote, and fcntl F_SETSIG fail with
// EPERM). Where that filter or Landlock's signal scope is missing, each
// Runner gets a zygote of its own. A lane that stops fails the command in
// flight, which does not run, and is opened again once; after that, and
// for a command it cannot take (a side file outside the writable roots,
// as in read-only mode), commands go through Wrap.
//
// The command starts in a session of its own, without a controlling
// terminal, leading its own process group: /dev/tty does not open, and
// the terminal hermes runs in is not the command's to type into. Wrap
// refuses a command whose standard streams or extra files include a
// terminal, and one asked to join another process group or to get a
// controlling terminal.
//
// The helper (Wrap's, or a lane of the zygote) starts in new user, mount
// and (network off or allowlist) network namespaces. In the user namespace
// only the user's own uid and gid are mapped, each to itself: `id -u`
// prints the same inside as outside, root stays 0. The helper then:
//   - makes every mount private, so nothing reaches the host;
//   - makes every mount read-only, except the writable roots
//     (workspace-write) and the side files, and every mount nodev, except
//     the ordinary devices (/dev/null, zero, full, random, urandom, tty):
//     outside the writable roots chmod, chown, utimes and xattrs fail
//     with EROFS, and no other device node (disks, consoles, virtual
//     terminals) opens; as between any two file systems, a hard link or a
//     rename from one writable root to another fails with EXDEV;
//   - mounts a devpts of the command's own over /dev/pts and its ptmx
//     over /dev/ptmx: a command can make pseudo-terminals but reaches
//     none of the host's, the terminal hermes runs in among them;
//   - binds the read-only paths that lie in writable roots (and the
//     start-up files of Protected there) over themselves read-only, and
//     their parents below the outermost root over themselves, so that
//     none of them can be renamed away and replaced; a hook directory git
//     would run hooks from (.git/hooks, core.hooksPath) is created empty
//     first if it is missing, so that no hook can be added either;
//   - mounts an empty read-only tmpfs over each hidden directory and
//     /dev/null over each hidden file;
//   - in allowlist mode, brings loopback up, listens on 127.0.0.1 and
//     hands the listener, with a pidfd of itself, to hermes over a socket
//     pair (an extra file of the command), and sets the proxy variables;
//     hermes serves the proxy on that listener until the pidfd reports
//     the command's exit;
//   - enforces Landlock: read and execute everywhere, every file right
//     beneath the writable roots (workspace-write), writes to the
//     ordinary devices and pseudo-terminals, ioctl on no device but those
//     (ABI 5; on the pseudo-terminals only where they are the command's
//     own), no TCP bind or connect when the network is off, and signals
//     only to the command's own processes;
//   - installs a seccomp filter under which ioctl TIOCSTI (typing into a
//     terminal) and TIOCLINUX fail with EPERM, in every system call ABI
//     of the machine;
//   - empties its bounding set, then its ambient, effective, permitted
//     and inheritable capabilities, and executes the command, which
//     holds no capability at all (no_new_privs keeps it so).
//
// Landlock makes the boundary independent of how a command writes (an
// interpreter, find -exec, a rename, truncate): outside the writable roots
// nothing can be created, changed or deleted. It also forbids the command
// to mount or unmount, so the binds stay. Without a user namespace (root
// only) a command runs as the host's root, without capabilities.
//
// # Processes
//
// Where hermes can make groups in the pids cgroup hierarchy (cgroup v1,
// as root: Status.ProcessLimit), every command a Runner starts runs in a
// cgroup of its own, limited to Policy.MaxProcesses processes and
// threads (DefaultMaxProcesses, 512): a fork bomb gets EAGAIN at the
// limit, and the rest of the machine keeps running. A lane's thread
// enters the command's group just before it forks the command, and
// leaves it after; through Wrap the helper enters the group before it
// executes the command: either way the command is born inside, and all
// it starts with it. When the command's context ends, every process in
// its group is killed, those that left its session or process group
// among them, until none is left; with StartOptions.EndWithCommand that
// happens when the wait returns too. The group is removed once empty.
// Policy.Wrap alone (without a Runner) limits nothing.
//
// Root in the initial user namespace is exempt from RLIMIT_NPROC, and a
// command's own user namespace maps root to root, so without that
// hierarchy (cgroup v2 alone, where a lane's thread cannot be moved by
// itself; a hermes that is not root) nothing limits a command's
// processes: Enforcement.MaxProcesses is 0 and Enforcement.String says
// so, with the reason, whatever the Level.
//
// The parent decides the plan from Probe and the helper enforces all of it
// or stops before the command runs; Status.Enforcement says, for a Policy,
// whether this system enforces it fully, partly (and what is missing) or
// not at all. A Policy with Required refuses to run what it cannot enforce
// fully. Off Linux nothing is enforced.
//
// A command's environment is the caller's business; redact.SecretVariable
// is the rule for the variables it should leave out (a secret's name or a
// credential's shape).
//
// Concurrency: a Policy is a value; its methods are safe for concurrent use.
// Probe, Wrap and Enforcement are safe for concurrent use.
package sandbox
