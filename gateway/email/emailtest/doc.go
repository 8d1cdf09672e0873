// Package emailtest runs a mail server for tests on 127.0.0.1: an IMAP
// server (go-imap's imapserver over its in-memory backend) holding the
// bot's INBOX, and an SMTP server (go-smtp) that records what the bot
// sends. Tests deliver mail into the INBOX (Deliver, Redeliver), read
// the bot's mail (Sent), and make the servers misbehave: sends held
// unanswered until released (Hold, Release; a held send whose client
// hung up is dropped, never delivered), the next sends answered with an
// SMTP error such as a 4xx rate limit (Fail), counting the sends that
// came before a rate limit's wait had passed (EarlyRetries); the IMAP
// connections cut and new ones refused (SetDown); a server without IDLE
// (Options.NoIdle). The servers speak TLS only after STARTTLS, and only
// with Options.StartTLS (a certificate for 127.0.0.1 that ClientTLS
// trusts); otherwise the adapter reaches them as imap:// and smtp:// on
// a loopback address, in clear.
package emailtest
