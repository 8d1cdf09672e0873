// Package netguard keeps the agent's web requests from reaching the
// machine it runs on or the networks behind it (server-side request
// forgery): loopback, private (RFC 1918, unique-local fc00::/7),
// link-local, carrier-grade NAT (100.64.0.0/10), unspecified, multicast
// and reserved addresses are refused unless AllowPrivate; cloud metadata
// endpoints (169.254.169.254, fd00:ec2::254, ...) are refused always.
//
// The check is made on the address actually dialled, at connect time
// (net.Dialer.ControlContext), after name resolution: a host name that
// resolves to a public address when it is first looked at and to
// 127.0.0.1 when the connection is made (DNS rebinding) is refused all the
// same, and so is every redirect hop, since each hop dials anew. Proxies
// from the environment are not used: through a proxy the dialled address
// would be the proxy's, and the check would mean nothing.
//
// Concurrency: a Guard is safe for concurrent use once built; the
// clients it returns are too.
package netguard
