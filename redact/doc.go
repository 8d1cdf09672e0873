// Package redact masks secrets (API keys, tokens, passwords, private
// keys) in text before it is logged, stored in a session or shown to a
// model.
//
// String keeps a short, public prefix where a key format has one
// ("sk-proj-…[REDACTED]", "ghp_…[REDACTED]") so a reader can tell which
// credential leaked, and never any of the secret part. It is idempotent:
// redacting twice gives the same text.
//
// Each rule is gated by a cheap substring test, so text without any
// trigger word costs one lower-casing pass; the regular expressions are
// RE2 (linear time, no catastrophic backtracking).
//
// Concurrency: every function and type here is safe for concurrent use.
package redact
