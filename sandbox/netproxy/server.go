package netproxy

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
	"syscall"
	"time"

	"github.com/hermes-go/hermes/sandbox/netallow"
	"github.com/hermes-go/hermes/tool/approval"
)

// dialTimeout bounds one connection to an allowed host.
const dialTimeout = 30 * time.Second

// Server is the proxy of one command.
type Server struct {
	// Allow is what gets through; nil lets nothing through but what the
	// user allows when asked.
	Allow *netallow.Allowlist
	// Ask asks the user about a domain Allow does not hold; nil refuses
	// it. ctx ends when the connection or the server does.
	Ask func(ctx context.Context, host string) (approval.Choice, error)
	// Dial connects to an allowed host ("host:port", by name); nil dials
	// directly.
	Dial func(ctx context.Context, network, addr string) (net.Conn, error)

	mu      sync.Mutex
	once    map[string]bool          // allowed for this server ("once")
	denied  map[string]string        // refused by the user, with why
	pending map[string]chan struct{} // open questions, closed on answer
	conns   map[net.Conn]bool
	closed  bool
	waiters int // connections waiting for an answer (for tests)
}

// Serve answers the connections l accepts until ctx ends or l fails; it
// then closes l and every connection still open, and returns.
func (s *Server) Serve(ctx context.Context, l net.Listener) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	stop := context.AfterFunc(ctx, func() {
		l.Close()
		s.closeAll()
	})
	defer stop()
	var wg sync.WaitGroup
	defer wg.Wait()
	defer cancel() // runs first: ends the connections before waiting
	var backoff time.Duration
	for {
		c, err := l.Accept()
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			if !transient(err) {
				return fmt.Errorf("netproxy: accept: %w", err)
			}
			// Out of descriptors: wait for some to close, as net/http does.
			backoff = min(max(2*backoff, 5*time.Millisecond), time.Second)
			select {
			case <-time.After(backoff):
				continue
			case <-ctx.Done():
				return nil
			}
		}
		backoff = 0
		if !s.track(c, true) {
			c.Close()
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer s.track(c, false)
			defer c.Close()
			s.serveConn(ctx, c)
		}()
	}
}

func transient(err error) bool {
	return errors.Is(err, syscall.EMFILE) || errors.Is(err, syscall.ENFILE) || errors.Is(err, syscall.ECONNABORTED)
}

// track adds or removes an open connection; it refuses to add one once
// the server is closing.
func (s *Server) track(c net.Conn, add bool) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !add {
		delete(s.conns, c)
		return true
	}
	if s.closed {
		return false
	}
	if s.conns == nil {
		s.conns = map[net.Conn]bool{}
	}
	s.conns[c] = true
	return true
}

func (s *Server) closeAll() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closed = true
	for c := range s.conns {
		c.Close()
	}
}

// serveConn tells SOCKS5 (first byte 5) from HTTP and serves c.
func (s *Server) serveConn(ctx context.Context, c net.Conn) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	br := bufio.NewReader(c)
	first, err := br.Peek(1)
	if err != nil {
		return
	}
	if first[0] == socksVersion {
		s.serveSOCKS(ctx, c, br)
		return
	}
	s.serveHTTP(ctx, c, br)
}

// refusal says why a host may not be reached; "" when it may.
type refusal string

// decide says whether host may be reached, asking the user when the
// allowlist does not say so and there is someone to ask.
func (s *Server) decide(ctx context.Context, host string) refusal {
	name, isIP := netallow.Normalize(host)
	for {
		if s.Allow.Allows(name) {
			return ""
		}
		s.mu.Lock()
		if s.once[name] {
			s.mu.Unlock()
			return ""
		}
		if why, ok := s.denied[name]; ok {
			s.mu.Unlock()
			return refusal(why)
		}
		if isIP || s.Ask == nil {
			s.mu.Unlock()
			return notAllowed(name, isIP)
		}
		if wait, ok := s.pending[name]; ok {
			s.waiters++
			s.mu.Unlock()
			select {
			case <-wait:
			case <-ctx.Done():
			}
			s.mu.Lock()
			s.waiters--
			s.mu.Unlock()
			if ctx.Err() != nil {
				return refusal(fmt.Sprintf("%s: the connection ended while the user was asked", name))
			}
			continue // answered: look again
		}
		if s.pending == nil {
			s.pending = map[string]chan struct{}{}
		}
		done := make(chan struct{})
		s.pending[name] = done
		s.mu.Unlock()
		why := s.ask(ctx, name)
		s.mu.Lock()
		delete(s.pending, name)
		close(done)
		s.mu.Unlock()
		return why
	}
}

// ask puts the question and records the answer.
func (s *Server) ask(ctx context.Context, name string) refusal {
	choice, err := s.Ask(ctx, name)
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case err != nil:
		choice = approval.Deny
	case choice == approval.Session || choice == approval.Always:
		if s.Allow != nil {
			s.Allow.Grant(name)
			return ""
		}
		fallthrough // no session to keep it in: this server's
	case choice == approval.Once:
		if s.once == nil {
			s.once = map[string]bool{}
		}
		s.once[name] = true
		return ""
	}
	why := fmt.Sprintf("%s is not in sandbox.network.allow and the user refused the connection", name)
	if err != nil {
		why = fmt.Sprintf("%s is not in sandbox.network.allow and could not be allowed: %v", name, err)
	}
	if ctx.Err() == nil { // a connection that ended is no answer
		if s.denied == nil {
			s.denied = map[string]string{}
		}
		s.denied[name] = why
	}
	return refusal(why)
}

func notAllowed(name string, isIP bool) refusal {
	if isIP {
		return refusal(fmt.Sprintf("%s is an IP address, and only domains are allowed unless sandbox.network.allow lists the address", name))
	}
	return refusal(fmt.Sprintf("%s is not in sandbox.network.allow", name))
}

// help is what a refusal adds about allowing a host.
const help = "To allow it, add it to sandbox.network.allow in config.yaml " +
	"(or answer \"always\" when hermes asks in a chat), or set sandbox.network: on to lift the allowlist."

// dial connects to an allowed host.
func (s *Server) dial(ctx context.Context, addr string) (net.Conn, error) {
	ctx, cancel := context.WithTimeout(ctx, dialTimeout)
	defer cancel()
	if s.Dial != nil {
		return s.Dial(ctx, "tcp", addr)
	}
	var d net.Dialer
	return d.DialContext(ctx, "tcp", addr)
}

// splice copies both ways between a (whose buffered reader is ar) and b
// until both directions end, passing each end of stream on.
func splice(a net.Conn, ar io.Reader, b net.Conn) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		io.Copy(b, ar)
		closeWrite(b)
	}()
	io.Copy(a, b)
	closeWrite(a)
	<-done
}

func closeWrite(c net.Conn) {
	if w, ok := c.(interface{ CloseWrite() error }); ok {
		w.CloseWrite()
		return
	}
	c.Close()
}
