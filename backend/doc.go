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
//
// Local is the behaviour of the terminal and file tools before backends
// existed, unchanged (the tests of tools/terminal and tools/file run
// through it): commands are child processes under bash -c in their own
// process group, in the sandbox when there is one, with the environment
// less the variables holding secrets; the file tools use this machine's
// file system (OSFS) under the sandbox's path rules; execute_code's
// scripts start as its commands do (Programs).
package backend
