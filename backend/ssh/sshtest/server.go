// Package sshtest is an SSH server for tests, on 127.0.0.1: each exec
// request runs through /bin/sh on this machine as sshd runs it (a new
// session, a clean environment, the exit status as soon as the shell
// exits, signals passed to the shell) and the sftp subsystem is served by
// pkg/sftp. It records what it ran, the signals it got and the SFTP
// traffic, so tests can tell what reached the "remote" side.
package sshtest

import (
	"crypto/ed25519"
	"crypto/rand"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	gliderssh "github.com/gliderlabs/ssh"
	"github.com/pkg/sftp"
	gossh "golang.org/x/crypto/ssh"
)

// Server is an SSH server on 127.0.0.1 that runs each exec request
// through /bin/sh on this machine as sshd does (a new session, a clean
// environment, the exit status as soon as the shell exits) and serves
// SFTP with pkg/sftp. It records what it ran.
type Server struct {
	t *testing.T
	// Addr is host:port; HostKey its key; Home the remote user's home
	// (outside /tmp).
	Addr    string
	HostKey gossh.Signer
	Home    string

	mu       sync.Mutex
	conns    []net.Conn
	commands []string // exec requests, in order
	signals  []string // signal requests, in order
	srv      *gliderssh.Server

	// SFTPIn counts the bytes of SFTP requests received; Logins the
	// connections that logged in.
	SFTPIn atomic.Int64
	Logins atomic.Int64
}

func NewKey(t *testing.T) (gossh.Signer, ed25519.PrivateKey) {
	t.Helper()
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	s, err := gossh.NewSignerFromKey(priv)
	if err != nil {
		t.Fatal(err)
	}
	return s, priv
}

// WriteKey writes priv as an OpenSSH private key file, mode 0600.
func WriteKey(t *testing.T, priv ed25519.PrivateKey, path string) {
	t.Helper()
	blk, err := gossh.MarshalPrivateKey(priv, "")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, pem.EncodeToMemory(blk), 0o600); err != nil {
		t.Fatal(err)
	}
}

// Start serves on 127.0.0.1 with hostKey, accepting clientKey.
func Start(t *testing.T, hostKey gossh.Signer, clientKey gossh.PublicKey) *Server {
	t.Helper()
	s := &Server{t: t, HostKey: hostKey, Home: remoteHome(t)}
	s.srv = &gliderssh.Server{
		Handler:     s.handle,
		HostSigners: []gliderssh.Signer{hostKey},
		PublicKeyHandler: func(ctx gliderssh.Context, key gliderssh.PublicKey) bool {
			ok := gliderssh.KeysEqual(key, clientKey)
			if ok {
				s.Logins.Add(1)
			}
			return ok
		},
		SubsystemHandlers: map[string]gliderssh.SubsystemHandler{"sftp": s.serveSFTP},
		ConnCallback: func(ctx gliderssh.Context, c net.Conn) net.Conn {
			s.mu.Lock()
			s.conns = append(s.conns, c)
			s.mu.Unlock()
			return c
		},
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s.Addr = ln.Addr().String()
	go s.srv.Serve(ln)
	t.Cleanup(func() { s.srv.Close() })
	return s
}

// remoteHome is the remote user's home: outside /tmp, which the path
// policy lets the file tools write.
func remoteHome(t *testing.T) string {
	t.Helper()
	home, err := os.MkdirTemp("/var/tmp", "hermes-ssh-home-")
	if err != nil {
		t.Skipf("no home outside /tmp for the remote user: %v", err)
	}
	t.Cleanup(func() { os.RemoveAll(home) })
	return home
}

// dropAll closes every connection the server holds, as a network
// failure or a restarted sshd would.
func (s *Server) DropAll() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, c := range s.conns {
		c.Close()
	}
	s.conns = nil
}

func (s *Server) Ran() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.commands...)
}

func (s *Server) Signals() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.signals...)
}

var signalNames = map[gliderssh.Signal]syscall.Signal{
	gliderssh.SIGKILL: syscall.SIGKILL, gliderssh.SIGTERM: syscall.SIGTERM, gliderssh.SIGINT: syscall.SIGINT, gliderssh.SIGHUP: syscall.SIGHUP,
}

func (s *Server) handle(sess gliderssh.Session) {
	s.mu.Lock()
	s.commands = append(s.commands, sess.RawCommand())
	s.mu.Unlock()
	cmd := exec.Command("/bin/sh", "-c", sess.RawCommand())
	cmd.Dir = s.Home
	// sshd's environment: the login's own, nothing of the client's.
	cmd.Env = []string{"HOME=" + s.Home, "PATH=" + os.Getenv("PATH"), "USER=tester", "LOGNAME=tester", "SHELL=/bin/sh", "SSH_CONNECTION=127.0.0.1 1 127.0.0.1 22"}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		sess.Exit(255)
		return
	}
	outR, outW, _ := os.Pipe()
	errR, errW, _ := os.Pipe()
	cmd.Stdout, cmd.Stderr = outW, errW
	sigs := make(chan gliderssh.Signal, 8)
	sess.Signals(sigs)
	if err := cmd.Start(); err != nil {
		fmt.Fprintln(sess.Stderr(), err)
		sess.Exit(127)
		return
	}
	outW.Close()
	errW.Close()
	go func() { io.Copy(stdin, sess); stdin.Close() }()
	copied := make(chan struct{}, 2)
	go func() { io.Copy(sess, outR); outR.Close(); copied <- struct{}{} }()
	go func() { io.Copy(sess.Stderr(), errR); errR.Close(); copied <- struct{}{} }()
	stop := make(chan struct{})
	go func() {
		for {
			select {
			case sig := <-sigs:
				s.mu.Lock()
				s.signals = append(s.signals, string(sig))
				s.mu.Unlock()
				if n, ok := signalNames[sig]; ok {
					cmd.Process.Signal(n) // sshd signals the shell, not its group
				}
			case <-stop:
				return
			}
		}
	}()
	cmd.Wait()
	close(stop)
	// The exit status goes once the shell has exited; output a process
	// it left running still holds is sent for a moment.
	t := time.NewTimer(200 * time.Millisecond)
	for n := 0; n < 2; n++ {
		select {
		case <-copied:
		case <-t.C:
			n = 2
		}
	}
	t.Stop()
	code := cmd.ProcessState.ExitCode()
	if code < 0 {
		code = 128 + int(cmd.ProcessState.Sys().(syscall.WaitStatus).Signal())
	}
	sess.Exit(code)
}

// countingRW counts the bytes of SFTP requests read from the client.
type countingRW struct {
	io.ReadWriteCloser
	n *atomic.Int64
}

func (c countingRW) Read(p []byte) (int, error) {
	n, err := c.ReadWriteCloser.Read(p)
	c.n.Add(int64(n))
	return n, err
}

// sessionCloser closes a session as the end of its SFTP stream.
type sessionCloser struct{ gliderssh.Session }

func (s sessionCloser) Close() error { return s.Session.Close() }

func (s *Server) serveSFTP(sess gliderssh.Session) {
	srv, err := sftp.NewServer(countingRW{sessionCloser{sess}, &s.SFTPIn})
	if err != nil {
		return
	}
	if err := srv.Serve(); err != nil && !errors.Is(err, io.EOF) {
		s.t.Logf("sftp server: %v", err)
	}
	srv.Close()
}
