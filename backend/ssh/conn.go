package ssh

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/pkg/sftp"
	gossh "golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/agent"
)

// conn is one SSH connection and the SFTP client over it.
type conn struct {
	client *gossh.Client
	dead   chan struct{} // closed once the connection has ended
	used   atomic.Int64  // when it was last handed out (unix nanoseconds)

	sftpOnce sync.Once
	sftp     *sftp.Client
	sftpErr  error
}

func (c *conn) alive() bool {
	select {
	case <-c.dead:
		return false
	default:
		return true
	}
}

// files is the connection's SFTP client, started on first use.
func (c *conn) files() (*sftp.Client, error) {
	c.sftpOnce.Do(func() {
		c.sftp, c.sftpErr = sftp.NewClient(c.client)
		if c.sftpErr != nil {
			c.sftpErr = fmt.Errorf("ssh: start the sftp subsystem: %w", c.sftpErr)
		}
	})
	return c.sftp, c.sftpErr
}

// close closes the connection, then the SFTP client: closing that first
// would wait for an answer a vanished peer never sends.
func (c *conn) close() {
	c.client.Close()
	c.sftpOnce.Do(func() {}) // waits for a start under way; none after
	if c.sftp != nil {
		c.sftp.Close()
	}
}

// connect returns the live connection, dialling a new one when there is
// none or it dropped. The first connection learns the remote home and
// shell, checks the workspace and makes the state directory; a later one
// (after a drop) finds them again.
func (b *Backend) connect(ctx context.Context) (*conn, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return nil, errors.New("ssh: the backend is closed")
	}
	if b.cur != nil && b.cur.alive() && (time.Since(time.Unix(0, b.cur.used.Load())) < b.idleProbe || b.cur.answers(b.opts.ConnectTimeout)) {
		b.cur.used.Store(time.Now().UnixNano())
		return b.cur, nil
	}
	if b.cur != nil {
		b.cur.close()
		b.cur = nil
	}
	c, err := b.dial(ctx)
	if err != nil {
		return nil, err
	}
	if err := b.setUp(ctx, c); err != nil {
		c.close()
		return nil, err
	}
	b.cur = c
	c.used.Store(time.Now().UnixNano())
	return c, nil
}

// answers says whether the peer answers a keepalive within d: a
// connection idle for a while may have lost its peer without a word (a
// dropped network), and a file operation on it would wait for ever.
func (c *conn) answers(d time.Duration) bool {
	res := make(chan error, 1)
	go func() {
		_, _, err := c.client.SendRequest("keepalive@openssh.com", true, nil)
		res <- err
	}()
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case err := <-res:
		return err == nil
	case <-t.C:
		return false
	}
}

// drop forgets c when it is the current connection, so that the next
// use dials again.
func (b *Backend) drop(c *conn) {
	b.mu.Lock()
	if b.cur == c {
		b.cur = nil
	}
	b.mu.Unlock()
	c.close()
}

func (b *Backend) dial(ctx context.Context) (*conn, error) {
	o := b.opts
	auth, closeAuth, err := b.authMethods()
	if err != nil {
		return nil, err
	}
	defer closeAuth()
	cfg := &gossh.ClientConfig{
		User:              o.User,
		Auth:              auth,
		HostKeyCallback:   b.checkHostKey,
		HostKeyAlgorithms: knownKeyTypes(o.KnownHosts, o.Addr()),
		Timeout:           o.ConnectTimeout,
	}
	d := net.Dialer{Timeout: o.ConnectTimeout}
	nc, err := d.DialContext(ctx, "tcp", o.Addr())
	if err != nil {
		return nil, fmt.Errorf("ssh: connect to %s: %w", o.Addr(), err)
	}
	cc, chans, reqs, err := gossh.NewClientConn(nc, o.Addr(), cfg)
	if err != nil {
		nc.Close()
		var uk *UnknownHostError
		var ch *HostKeyChangedError
		if errors.As(err, &uk) {
			return nil, uk
		}
		if errors.As(err, &ch) {
			return nil, ch
		}
		return nil, fmt.Errorf("ssh: log in to %s@%s: %w", o.User, o.Addr(), err)
	}
	c := &conn{client: gossh.NewClient(cc, chans, reqs), dead: make(chan struct{})}
	go func() {
		c.client.Wait()
		close(c.dead)
	}()
	return c, nil
}

// checkHostKey refuses a host key known_hosts does not hold, saying so
// on Stderr too (once per key) with the fingerprint and the command that
// trusts it.
func (b *Backend) checkHostKey(_ string, remote net.Addr, key gossh.PublicKey) error {
	err := CheckHostKey(b.opts.KnownHosts, b.opts.Addr(), remote, key)
	if err != nil {
		fp := gossh.FingerprintSHA256(key)
		b.mu2.Lock()
		said := b.warned[fp]
		b.warned[fp] = true
		b.mu2.Unlock()
		if !said {
			b.opts.Warn(err.Error())
		}
	}
	return err
}

// authMethods are the key file, else the agent's keys, else the usual
// key files: what `ssh` would offer. closeAuth ends the agent connection
// once logged in.
func (b *Backend) authMethods() (methods []gossh.AuthMethod, closeAuth func(), err error) {
	o := b.opts
	closeAuth = func() {}
	if o.Key != "" {
		s, err := readKey(o.Key)
		if err != nil {
			return nil, closeAuth, err
		}
		methods = append(methods, gossh.PublicKeys(s))
	}
	if sock := o.Getenv("SSH_AUTH_SOCK"); sock != "" {
		if ac, err := net.Dial("unix", sock); err == nil {
			methods = append(methods, gossh.PublicKeysCallback(agent.NewClient(ac).Signers))
			closeAuth = func() { ac.Close() }
		}
	}
	if o.Key == "" {
		var signers []gossh.Signer
		for _, name := range []string{"id_ed25519", "id_ecdsa", "id_rsa"} {
			if s, err := readKey(filepath.Join(o.localHome(), ".ssh", name)); err == nil {
				signers = append(signers, s)
			}
		}
		if len(signers) > 0 {
			methods = append(methods, gossh.PublicKeys(signers...))
		}
	}
	if len(methods) == 0 {
		return nil, closeAuth, fmt.Errorf("ssh: no key to log in to %s with: set terminal.ssh.key, or start ssh-agent (SSH_AUTH_SOCK) with a key added", o.Addr())
	}
	return methods, closeAuth, nil
}

func readKey(path string) (gossh.Signer, error) {
	pem, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("ssh: read key %s: %w", path, err)
	}
	s, err := gossh.ParsePrivateKey(pem)
	var pm *gossh.PassphraseMissingError
	if errors.As(err, &pm) {
		return nil, fmt.Errorf("ssh: key %s is protected by a passphrase: add it to ssh-agent (ssh-add %s) and leave terminal.ssh.key empty", path, path)
	}
	if err != nil {
		return nil, fmt.Errorf("ssh: parse key %s: %w", path, err)
	}
	return s, nil
}

// output runs a command line of the remote login shell and returns its
// stdout (stderr added to the error when it fails).
func (c *conn) output(command string) (string, error) {
	s, err := c.client.NewSession()
	if err != nil {
		return "", err
	}
	defer s.Close()
	var stdout, stderr strings.Builder
	s.Stdout, s.Stderr = &stdout, &stderr
	if err := s.Run(command); err != nil {
		return stdout.String(), fmt.Errorf("%w: %s", err, strings.TrimSpace(stderr.String()))
	}
	return stdout.String(), nil
}

// lost says whether err means the connection is gone, so the operation
// may be tried again on a new one.
func lost(err error) bool {
	return errors.Is(err, sftp.ErrSSHFxConnectionLost) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, net.ErrClosed) || errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE)
}
