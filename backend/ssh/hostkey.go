package ssh

import (
	"bufio"
	"bytes"
	"cmp"
	"crypto/ed25519"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"strings"

	gossh "golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/knownhosts"
)

// UnknownHostError refuses a host whose key known_hosts does not hold:
// nothing is run there until the user trusts it.
type UnknownHostError struct {
	Addr        string // host:port as configured
	KeyType     string
	Fingerprint string // SHA256:...
	KnownHosts  string
}

func (e *UnknownHostError) Error() string {
	return fmt.Sprintf("ssh: the host key of %s is not known (%s %s, not in %s); nothing was run there. "+
		"If that is the host's fingerprint, trust it with: %s",
		e.Addr, e.KeyType, e.Fingerprint, e.KnownHosts, TrustCommand(e.Addr))
}

// HostKeyChangedError refuses a host whose key differs from the one
// known_hosts holds for it: someone may be in the middle.
type HostKeyChangedError struct {
	Addr        string
	KeyType     string
	Fingerprint string // of the key offered now
	KnownHosts  string
	Known       []string // "file:line (type SHA256:...)" of the keys on record
}

func (e *HostKeyChangedError) Error() string {
	return fmt.Sprintf("ssh: WARNING: THE HOST KEY OF %s HAS CHANGED: it offered %s %s, but %s holds another key for it (%s). "+
		"Someone may be intercepting the connection (man in the middle), or the host was reinstalled. Refused; nothing was run there. "+
		"If the change is expected, delete the old line and run: %s",
		e.Addr, e.KeyType, e.Fingerprint, e.KnownHosts, strings.Join(e.Known, "; "), TrustCommand(e.Addr))
}

// TrustCommand is the command that trusts the host at addr.
func TrustCommand(addr string) string {
	host, port, err := net.SplitHostPort(addr)
	if err == nil && port == "22" {
		return "hermes ssh trust " + host
	}
	return "hermes ssh trust " + addr
}

// CheckHostKey checks key, offered by the host dialled as addr (host:port)
// at remote, against the known_hosts file: nil when it is on record, an
// *UnknownHostError when the host is not, a *HostKeyChangedError when
// another key is on record for it. A missing file knows no host.
func CheckHostKey(file, addr string, remote net.Addr, key gossh.PublicKey) error {
	check, err := knownhosts.New(file)
	if errors.Is(err, fs.ErrNotExist) {
		return &UnknownHostError{Addr: addr, KeyType: key.Type(), Fingerprint: gossh.FingerprintSHA256(key), KnownHosts: file}
	}
	if err != nil {
		return fmt.Errorf("ssh: read known hosts %s: %w", file, err)
	}
	err = check(addr, remote, key)
	var ke *knownhosts.KeyError
	if errors.As(err, &ke) {
		if len(ke.Want) == 0 {
			return &UnknownHostError{Addr: addr, KeyType: key.Type(), Fingerprint: gossh.FingerprintSHA256(key), KnownHosts: file}
		}
		ch := &HostKeyChangedError{Addr: addr, KeyType: key.Type(), Fingerprint: gossh.FingerprintSHA256(key), KnownHosts: file}
		for _, k := range ke.Want {
			ch.Known = append(ch.Known, fmt.Sprintf("%s:%d (%s %s)", k.Filename, k.Line, k.Key.Type(), gossh.FingerprintSHA256(k.Key)))
		}
		return ch
	}
	var re *knownhosts.RevokedError
	if errors.As(err, &re) {
		return fmt.Errorf("ssh: the host key of %s (%s) is marked revoked in %s:%d; refused", addr, gossh.FingerprintSHA256(key), re.Revoked.Filename, re.Revoked.Line)
	}
	return err
}

// knownKeyTypes are the algorithms of the keys known_hosts holds for
// addr, so that the host is asked for a key that can be checked (a host
// with an ed25519 key on record must not be refused as changed for
// offering its RSA key first); nil when none is known.
func knownKeyTypes(file, addr string) []string {
	check, err := knownhosts.New(file)
	if err != nil {
		return nil
	}
	// A key that is never on record makes the check list those that are.
	probe, _ := gossh.NewPublicKey(ed25519.PublicKey(bytes.Repeat([]byte{0xff}, ed25519.PublicKeySize)))
	var ke *knownhosts.KeyError
	if !errors.As(check(addr, &net.TCPAddr{IP: net.IPv4zero}, probe), &ke) {
		return nil
	}
	var algos []string
	for _, k := range ke.Want {
		switch t := k.Key.Type(); t {
		case gossh.KeyAlgoRSA:
			algos = append(algos, gossh.KeyAlgoRSASHA512, gossh.KeyAlgoRSASHA256, gossh.KeyAlgoRSA)
		default:
			algos = append(algos, t)
		}
	}
	return algos
}

// Trust appends key as the host key of addr (and of the address it was
// reached at, remote, when that differs) to the known_hosts file,
// creating it (and its directory, mode 0700) when missing.
func Trust(file, addr string, remote net.Addr, key gossh.PublicKey) error {
	names := []string{knownhosts.Normalize(addr)}
	if remote != nil {
		if ip := knownhosts.Normalize(remote.String()); ip != names[0] {
			names = append(names, ip)
		}
	}
	if err := os.MkdirAll(filepath.Dir(file), 0o700); err != nil {
		return fmt.Errorf("create %s: %w", filepath.Dir(file), err)
	}
	f, err := os.OpenFile(file, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return fmt.Errorf("open %s: %w", file, err)
	}
	w := bufio.NewWriter(f)
	if st, err := f.Stat(); err == nil && st.Size() > 0 && !endsWithNewline(file) {
		w.WriteByte('\n')
	}
	w.WriteString(knownhosts.Line(names, key) + "\n")
	if err := w.Flush(); err != nil {
		f.Close()
		return fmt.Errorf("write %s: %w", file, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("write %s: %w", file, err)
	}
	return nil
}

func endsWithNewline(file string) bool {
	b, err := os.ReadFile(file)
	return err == nil && (len(b) == 0 || b[len(b)-1] == '\n')
}

// ScanHostKey connects to addr and returns the key it offers and the
// address it was reached at, without logging in.
func ScanHostKey(addr string, cfg *gossh.ClientConfig) (gossh.PublicKey, net.Addr, error) {
	var key gossh.PublicKey
	var remote net.Addr
	errGot := errors.New("host key received")
	c := *cfg
	c.HostKeyCallback = func(_ string, r net.Addr, k gossh.PublicKey) error {
		key, remote = k, r
		return errGot
	}
	c.Auth = nil
	conn, err := net.DialTimeout("tcp", addr, cmp.Or(c.Timeout, DefaultConnectTimeout))
	if err != nil {
		return nil, nil, fmt.Errorf("ssh: connect to %s: %w", addr, err)
	}
	defer conn.Close()
	_, _, _, err = gossh.NewClientConn(conn, addr, &c)
	if key == nil {
		return nil, nil, fmt.Errorf("ssh: %s offered no host key: %w", addr, err)
	}
	return key, remote, nil
}
