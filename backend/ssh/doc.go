// Package ssh is the ssh backend (terminal.backend: ssh): the terminal,
// process and file tools act on a remote host, reached with
// golang.org/x/crypto/ssh (no ssh binary is needed).
//
// Contract (each point is tested in ssh_test.go against an in-process
// server, package sshtest, running real commands through /bin/sh):
//   - Host keys are checked against known_hosts (terminal.ssh.known_hosts,
//     default ~/.ssh/known_hosts) with ssh/knownhosts. A host whose key is
//     not on record is refused, never accepted silently: the tool result
//     and hermes' warnings (Options.Warn, stderr on the command line)
//     give its SHA256 fingerprint and the command that trusts it
//     (`hermes ssh trust HOST[:PORT]`), and nothing runs there. A host
//     whose key differs from the one on record is refused loudly, naming
//     both keys and the known_hosts line.
//   - It logs in with terminal.ssh.key, else the running ssh-agent's keys
//     (SSH_AUTH_SOCK), else ~/.ssh/id_ed25519, id_ecdsa, id_rsa; a key
//     with a passphrase must be in the agent.
//   - One connection per backend carries a channel per command and the
//     SFTP session; a connection that dropped is made again on the next
//     use, and the shell state survives it (it lives on the remote host).
//     One that stops answering without closing (a vanished network) is
//     given up after the connect timeout: opening a command's channel
//     waits no longer, and a connection idle for 10 s must answer a
//     keepalive before a file operation uses it.
//   - Each command runs in a fresh remote shell (bash, else sh) that reads
//     its script from the channel, so the login shell parses nothing of
//     it. The shell state is carried per task id: an EXIT trap writes the
//     directory and the exported variables to a state directory (mode
//     0700, under /tmp on the remote host, removed by Close), which the
//     next command of the task reads back. So `cd` and `export` carry
//     over, as in one long-lived shell, while a command that hangs or is
//     killed takes no other with it.
//   - Results read as on the local backend: exit code, cwd, stdout and
//     stderr apart, capped by the terminal tool.
//   - Interrupting a command (cancel, timeout, process kill) sends SIGKILL
//     over its channel, kills its remote process group (the shell is a
//     session leader under sshd) and closes the channel; a foreground
//     command's leftovers (`cmd &`) are killed when it ends.
//   - Nothing of hermes' environment travels: the remote commands get the
//     remote login's environment plus the variables terminal.forward_env
//     names (and PAGER=cat, GIT_PAGER=cat, GIT_TERMINAL_PROMPT=0).
//   - The file tools go over SFTP, never through a shell command, in the
//     remote paths: relative paths resolve against the task's remote
//     directory, ~ is the remote home. The sandbox mode is their path
//     policy there (CheckRead, CheckWrite): read-only writes nothing,
//     workspace-write writes only under terminal.ssh.cwd and /tmp (never
//     its .git/hooks, .git/config or .hermes), and short of full-access
//     the remote credential files (~/.ssh, ~/.aws ...) are neither read
//     nor written, nor shell start-up files written; links are judged by
//     where they lead on the remote host.
//   - The local sandbox does not apply to the remote commands, which run
//     with the remote user's rights: Describe says so, for the status
//     line, `hermes sandbox status` and the usage file. The executor's
//     approvals, hardline list and redaction apply as on every backend:
//     they run before a tool reaches the backend.
//   - execute_code is not offered: its scripts are programs of this
//     machine (the backend does not implement backend.Programs).
package ssh
