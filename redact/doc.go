// Package redact masks secrets (API keys, tokens, passwords, private
// keys) in text before it is logged, stored in a session or shown to a
// model.
//
// Two layers. String masks by shape: the credential formats known by their
// prefix (sk-, ghp_, glpat-, xai-, AKIA, AIza, sk_live_, JWTs, age
// identities, ...), private keys, authorization and API-key headers,
// passwords in URLs and connection strings, Telegram bot tokens, and
// assignments whose name says they hold a credential (API_KEY=...,
// "password": "...", DB_PW=...), where the value is judged too, so token
// counts, prose and code stay as they are. A Redactor masks by value as
// well: the secrets it is told (New, Add) wherever they appear, also cut
// short, reversed, in hex, URL- or JSON-escaped, or in base64, then applies
// String. Any piece of 12 bytes or more cut out of a known secret (a field
// of a JWT, a line of a private key) is masked in all these forms too. A
// private key is learned by the lines of its body, not its BEGIN and END
// lines, which every key of its kind shares.
//
// SecretName tells the environment variables whose name says they hold a
// secret, SecretField the fields of configuration files, and TokenShaped
// the values that are credentials by their shape alone: a known token
// format, a private key, or a random string of the base64 alphabets that
// is not hexadecimal (commit hashes, UUIDs and digests are not).
// SecretVariable is SecretName or TokenShaped. Package harvest finds the
// secrets of a workspace's credential files and of an environment.
//
// A mask keeps a short public prefix where a key format has one
// ("sk-proj-…[REDACTED]", "ghp_…[REDACTED]") so a reader can tell which
// credential leaked, and never any of the secret part. Masking is
// idempotent: redacting twice gives the same text. Secrets are matched
// across what can split them in output: line breaks, escape sequences
// (\n, \\, ANSI colours) and zero-width characters.
//
// Cost: one pass over the text with a byte-pair table finds the token
// prefixes and the trigger words of the other rules; the regular
// expressions (RE2, linear time) and the hand-written scanners run only on
// the lines that hold a trigger. The by-value scan reads the text once
// more, probing 8 bytes at every fifth position against a Bloom filter of
// the known secrets. Both are linear in the length of the text.
//
// Concurrency: every function and type here is safe for concurrent use;
// a Redactor's Add may run while its String does.
package redact
