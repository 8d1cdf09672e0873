// Package sandbox is the safety boundary around what the agent runs: a
// Policy says which paths a command may write, which it may not even
// read, and whether it may open network connections; the kernel enforces
// it for every command the terminal tool starts, and the file tools check
// the same Policy in process before they touch a path.
//
// Modes (sandbox.mode, --sandbox):
//   - read-only: commands read what they may and write nothing; the
//     network is off unless sandbox.network turns it on.
//   - workspace-write (the default): the workspace (the git root, else the
//     working directory), /tmp, $TMPDIR and sandbox.writable_roots are
//     writable, except .git/hooks, .git/config and .hermes inside them;
//     everything else is read-only.
//   - full-access: no sandbox. Only this mode lifts it; --yolo never does.
//
// In every mode short of full-access the agent's own keys and the user's
// credentials (HERMES_HOME, ~/.ssh, cloud and package-registry credential
// files) can be neither read nor written by a command, and the file tools
// refuse them too, so the agent can never change its own safety settings.
//
// Concurrency: a Policy is a value; its methods are safe for concurrent use.
package sandbox
