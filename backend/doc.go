// Package backend is where the terminal, process, file and execute_code
// tools act: the Backend interface they are written against, and Local,
// the backend of this machine (terminal.backend: local). Package
// backend/ssh is the backend of a remote host.
//
// A conversation's workspace holds one Backend, chosen by
// terminal.backend (or --backend) when the workspace is made, and gives
// it to its tools; the executor's checks (approvals, the hardline list,
// redaction, hooks) run before any tool reaches a backend, so they apply
// on every backend alike.
package backend
