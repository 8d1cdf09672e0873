// Package netproxy is the network boundary of a sandboxed command in
// allowlist mode: a small HTTP and SOCKS5 proxy that lets a command
// reach only the domains its Allowlist holds.
//
// One listener serves both protocols: a connection that opens with the
// SOCKS version byte 5 speaks SOCKS5 (CONNECT only), any other speaks
// HTTP, where CONNECT opens a tunnel (HTTPS, git over HTTPS) and a
// request in absolute form ("GET http://host/path") is forwarded. The
// proxy dials out itself, by name, so a command never needs DNS.
//
// A host is let through when the Allowlist (package netallow) matches it.
// Any other host is refused: HTTP gets 403 with a status line and a body
// naming the host and how to allow it (sandbox.network.allow in
// config.yaml), SOCKS5 gets reply 2, "connection not allowed by
// ruleset". With an Ask hook a domain (not an
// IP address) that is not allowed is asked about first: Once lets the
// host through for the rest of this Server's connections, Session and
// Always add it to the Allowlist (which the caller shares between the
// servers of a session; persisting "always" is the hook's business), and
// Deny refuses it for the rest of this Server's life without asking
// again. Only one question per host is open at a time; other connections
// to it wait for the answer.
//
// An allowed domain is trusted with whatever a command sends there: a
// forge that accepts pushes (github.com) can carry data out. The
// Allowlist says where, not what.
//
// Concurrency: a Server serves one listener at a time, its connections
// concurrently.
package netproxy
