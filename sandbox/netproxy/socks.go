package netproxy

import (
	"bufio"
	"context"
	"encoding/binary"
	"errors"
	"io"
	"net"
	"net/netip"
	"slices"
	"strconv"
	"syscall"
)

// socksVersion opens every SOCKS5 message (RFC 1928).
const socksVersion = 5

// SOCKS5 reply codes.
const (
	socksSucceeded       = 0
	socksFailure         = 1
	socksNotAllowed      = 2 // connection not allowed by ruleset
	socksHostUnreachable = 4
	socksRefused         = 5
	socksNoCommand       = 7
	socksNoAddressType   = 8
)

// serveSOCKS serves one SOCKS5 CONNECT on c, without authentication.
func (s *Server) serveSOCKS(ctx context.Context, c net.Conn, br *bufio.Reader) {
	var greeting [2]byte
	if _, err := io.ReadFull(br, greeting[:]); err != nil {
		return
	}
	methods := make([]byte, greeting[1])
	if _, err := io.ReadFull(br, methods); err != nil {
		return
	}
	if !slices.Contains(methods, 0) { // "no authentication required"
		c.Write([]byte{socksVersion, 0xff})
		return
	}
	if _, err := c.Write([]byte{socksVersion, 0}); err != nil {
		return
	}
	var req [4]byte // version, command, reserved, address type
	if _, err := io.ReadFull(br, req[:]); err != nil || req[0] != socksVersion {
		return
	}
	host, ok := readSOCKSHost(br, req[3])
	if !ok {
		socksReply(c, socksNoAddressType)
		return
	}
	var port [2]byte
	if _, err := io.ReadFull(br, port[:]); err != nil {
		return
	}
	if req[1] != 1 { // only CONNECT: no BIND, no UDP ASSOCIATE
		socksReply(c, socksNoCommand)
		return
	}
	if why := s.decide(ctx, host); why != "" {
		socksReply(c, socksNotAllowed)
		return
	}
	up, err := s.dial(ctx, net.JoinHostPort(host, strconv.Itoa(int(binary.BigEndian.Uint16(port[:])))))
	if err != nil {
		socksReply(c, dialReply(err))
		return
	}
	defer up.Close()
	if socksReply(c, socksSucceeded) != nil {
		return
	}
	splice(c, br, up)
}

// readSOCKSHost reads the destination address of a request: an IPv4
// address (type 1), a domain name (3) or an IPv6 address (4).
func readSOCKSHost(r io.Reader, kind byte) (string, bool) {
	switch kind {
	case 1, 4:
		b := make([]byte, 4)
		if kind == 4 {
			b = make([]byte, 16)
		}
		if _, err := io.ReadFull(r, b); err != nil {
			return "", false
		}
		ip, _ := netip.AddrFromSlice(b)
		return ip.String(), true
	case 3:
		var n [1]byte
		if _, err := io.ReadFull(r, n[:]); err != nil {
			return "", false
		}
		name := make([]byte, n[0])
		if _, err := io.ReadFull(r, name); err != nil {
			return "", false
		}
		return string(name), true
	}
	return "", false
}

// socksReply answers a request; the bound address is left unspecified.
func socksReply(c net.Conn, code byte) error {
	_, err := c.Write([]byte{socksVersion, code, 0, 1, 0, 0, 0, 0, 0, 0})
	return err
}

func dialReply(err error) byte {
	var dnsErr *net.DNSError
	switch {
	case errors.Is(err, syscall.ECONNREFUSED):
		return socksRefused
	case errors.As(err, &dnsErr), errors.Is(err, syscall.EHOSTUNREACH), errors.Is(err, syscall.ENETUNREACH):
		return socksHostUnreachable
	}
	return socksFailure
}
