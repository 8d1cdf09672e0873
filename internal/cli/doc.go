// Package cli is the hermes command line: flag parsing (cobra), building
// the runtime from flags, config.yaml and the environment and opening the
// run's conversation on it, and the surfaces that print progress. It
// holds no loop logic; every turn runs in a conversation of package app.
//
// Exit statuses: 0 when the command did what it was asked (for a prompt,
// the turn completed), 1 when it failed (a turn that failed or ended
// without completing, such as at the end of its budget), 2 for a usage
// or setup problem (a flag, config.yaml, no provider, a session that
// cannot be resumed), 130 when interrupted.
package cli
