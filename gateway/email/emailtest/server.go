package emailtest

import (
	"bytes"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"io"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/emersion/go-imap/v2"
	"github.com/emersion/go-imap/v2/imapserver"
	"github.com/emersion/go-imap/v2/imapserver/imapmemserver"
	"github.com/emersion/go-sasl"
	"github.com/emersion/go-smtp"
)

// Options configure a Server.
type Options struct {
	// User and Password are the bot's login (default
	// hermes@example.com and "secret"); User is also its address.
	User, Password string
	// NoIdle hides IDLE from the IMAP server's capabilities.
	NoIdle bool
	// StartTLS makes both servers offer STARTTLS, with a certificate for
	// 127.0.0.1 that ClientTLS trusts.
	StartTLS bool
}

// Server is the IMAP and SMTP server of one test.
type Server struct {
	o     Options
	roots *x509.CertPool
	user  *imapmemserver.User
	imap  *gate
	smtp  net.Listener

	mu           sync.Mutex
	changed      chan struct{}
	sent         []Sent
	attempts     []Attempt
	holding      bool
	release      chan struct{}
	held         int
	fails        []*smtp.SMTPError
	limitedUntil time.Time
	early        int
	wire         wire
}

// NewServer starts both servers; they stop when the test ends.
func NewServer(t testing.TB, o Options) *Server {
	t.Helper()
	if o.User == "" {
		o.User = "hermes@example.com"
	}
	if o.Password == "" {
		o.Password = "secret"
	}
	s := &Server{o: o, changed: make(chan struct{}), release: make(chan struct{})}
	s.wire.s = s
	var serverTLS *tls.Config
	if o.StartTLS {
		serverTLS, s.roots = selfSigned(t)
	}
	s.user = imapmemserver.NewUser(o.User, o.Password)
	if err := s.user.Create("INBOX", nil); err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s.imap = &gate{Listener: ln, conns: map[*conn]bool{}, noIdle: o.NoIdle}
	is := imapserver.New(&imapserver.Options{
		NewSession: func(*imapserver.Conn) (imapserver.Session, *imapserver.GreetingData, error) {
			return &session{user: s.user}, nil, nil
		},
		Caps:         imap.CapSet{imap.CapIMAP4rev1: {}, imap.CapIMAP4rev2: {}},
		InsecureAuth: true,
		Logger:       quiet{},
		DebugWriter:  &s.wire,
		TLSConfig:    serverTLS,
	})
	go is.Serve(s.imap)

	s.smtp, err = net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ss := smtp.NewServer(smtp.BackendFunc(func(c *smtp.Conn) (smtp.Session, error) { return &smtpSession{s: s, c: c}, nil }))
	ss.Domain = "localhost"
	ss.AllowInsecureAuth = true
	ss.TLSConfig = serverTLS
	ss.ErrorLog = quiet{}
	go ss.Serve(s.smtp)
	t.Cleanup(func() {
		s.Release()
		is.Close()
		ss.Close()
	})
	return s
}

// IMAPURL and SMTPURL are the servers' addresses; User and Password the
// bot's login; Address the bot's address.
func (s *Server) IMAPURL() string  { return "imap://" + s.imap.Addr().String() }
func (s *Server) SMTPURL() string  { return "smtp://" + s.smtp.Addr().String() }
func (s *Server) User() string     { return s.o.User }
func (s *Server) Password() string { return s.o.Password }
func (s *Server) Address() string  { return s.o.User }

// Deliver puts a mail into the INBOX, as the receiving server would.
func (s *Server) Deliver(t testing.TB, raw []byte) {
	t.Helper()
	if _, err := s.user.Append("INBOX", bytes.NewReader(raw), &imap.AppendOptions{}); err != nil {
		t.Fatalf("delivering a mail: %v", err)
	}
	s.notify()
}

// IMAPWire is everything said on the IMAP connections, both ways (each
// write wakes WaitFor).
func (s *Server) IMAPWire() string { return s.wire.String() }

// SetDown cuts every IMAP connection and refuses new ones (true), or
// takes them again (false).
func (s *Server) SetDown(down bool) { s.imap.setDown(down); s.notify() }

// WaitFor waits until cond holds, checking on every change; it reports
// whether cond held before the timeout.
func (s *Server) WaitFor(timeout time.Duration, cond func() bool) bool {
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	for {
		s.mu.Lock()
		ch := s.changed
		s.mu.Unlock()
		if cond() {
			return true
		}
		select {
		case <-ch:
		case <-deadline.C:
			return cond()
		}
	}
}

func (s *Server) notify() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.notifyLocked()
}

func (s *Server) notifyLocked() {
	close(s.changed)
	s.changed = make(chan struct{})
}

type quiet struct{}

func (quiet) Printf(string, ...any) {}
func (quiet) Println(...any)        {}

// session is the in-memory backend's session for the one user, which
// also hands over the updates queued before an IDLE as the IDLE starts
// (as Dovecot does; the backend alone holds them until the next one).
type session struct {
	*imapmemserver.UserSession
	user *imapmemserver.User
}

func (ss *session) Login(user, password string) error {
	if err := ss.user.Login(user, password); err != nil {
		return imapserver.ErrAuthFailed
	}
	ss.UserSession = imapmemserver.NewUserSession(ss.user)
	return nil
}

func (ss *session) Close() error {
	if ss.UserSession == nil {
		return nil
	}
	return ss.UserSession.Close()
}

func (ss *session) Idle(w *imapserver.UpdateWriter, stop <-chan struct{}) error {
	if err := ss.UserSession.Poll(w, true); err != nil {
		return err
	}
	return ss.UserSession.Idle(w, stop)
}

// wire keeps the IMAP traffic.
type wire struct {
	s  *Server
	mu sync.Mutex
	b  bytes.Buffer
}

func (w *wire) Write(p []byte) (int, error) {
	w.mu.Lock()
	n, err := w.b.Write(p)
	w.mu.Unlock()
	w.s.notify()
	return n, err
}

func (w *wire) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.String()
}

// gate is the IMAP listener: it knows its connections, to cut them, and
// refuses new ones while down.
type gate struct {
	net.Listener
	noIdle bool
	mu     sync.Mutex
	down   bool
	conns  map[*conn]bool
}

func (g *gate) Accept() (net.Conn, error) {
	for {
		c, err := g.Listener.Accept()
		if err != nil {
			return nil, err
		}
		g.mu.Lock()
		if g.down {
			g.mu.Unlock()
			c.Close()
			continue
		}
		tc := &conn{Conn: c, g: g}
		g.conns[tc] = true
		g.mu.Unlock()
		return tc, nil
	}
}

func (g *gate) setDown(down bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.down = down
	if down {
		for c := range g.conns {
			c.Conn.Close()
		}
	}
}

type conn struct {
	net.Conn
	g *gate
}

func (c *conn) Close() error {
	c.g.mu.Lock()
	delete(c.g.conns, c)
	c.g.mu.Unlock()
	return c.Conn.Close()
}

// Write hides IDLE from the capabilities where asked to.
func (c *conn) Write(b []byte) (int, error) {
	if c.g.noIdle && bytes.Contains(b, []byte("CAPABILITY")) {
		_, err := c.Conn.Write(bytes.ReplaceAll(b, []byte(" IDLE"), nil))
		return len(b), err
	}
	return c.Conn.Write(b)
}

// smtpSession takes the bot's mail.
type smtpSession struct {
	s    *Server
	c    *smtp.Conn
	from string
	to   []string
}

func (ss *smtpSession) AuthMechanisms() []string { return []string{sasl.Plain} }

func (ss *smtpSession) Auth(mech string) (sasl.Server, error) {
	return sasl.NewPlainServer(func(identity, user, password string) error {
		if user != ss.s.o.User || password != ss.s.o.Password {
			return &smtp.SMTPError{Code: 535, EnhancedCode: smtp.EnhancedCode{5, 7, 8}, Message: "Authentication failed"}
		}
		return nil
	}), nil
}

func (ss *smtpSession) Mail(from string, _ *smtp.MailOptions) error {
	ss.from, ss.to = from, nil
	return nil
}

func (ss *smtpSession) Rcpt(to string, _ *smtp.RcptOptions) error {
	ss.to = append(ss.to, to)
	return nil
}

func (ss *smtpSession) Reset()        { ss.from, ss.to = "", nil }
func (ss *smtpSession) Logout() error { return nil }

// Data records the attempt, answers a queued failure, holds the mail
// while sends are held, and keeps it.
func (ss *smtpSession) Data(r io.Reader) error {
	raw, err := io.ReadAll(r)
	if err != nil {
		return err
	}
	m := parseSent(ss.from, ss.to, raw)
	s := ss.s
	s.mu.Lock()
	m.At = time.Now()
	if m.At.Before(s.limitedUntil) {
		s.early++
	}
	if len(s.fails) > 0 {
		f := s.fails[0]
		s.fails = s.fails[1:]
		s.attempts = append(s.attempts, Attempt{At: m.At, Code: f.Code, Mail: m})
		if d := waitOf(f.Message); d > 0 {
			s.limitedUntil = m.At.Add(d)
		}
		s.notifyLocked()
		s.mu.Unlock()
		return f
	}
	if s.holding {
		s.held++
		release := s.release
		s.notifyLocked()
		s.mu.Unlock()
		gone := hungUp(ss.c.Conn(), release)
		s.mu.Lock()
		s.held--
		s.notifyLocked()
		if gone {
			s.mu.Unlock()
			return fmt.Errorf("the client hung up")
		}
	}
	m.At = time.Now()
	s.attempts = append(s.attempts, Attempt{At: m.At, Code: 250, Mail: m})
	s.sent = append(s.sent, *m)
	s.notifyLocked()
	s.mu.Unlock()
	return nil
}

// hungUp waits for release, and reports true if the client closed the
// connection first. The client sends nothing while it waits for the
// answer to DATA, so a read returns only when it hangs up.
func hungUp(c net.Conn, release <-chan struct{}) bool {
	done := make(chan bool, 1)
	go func() {
		var b [1]byte
		_, err := c.Read(b[:])
		done <- err != nil && !isTimeout(err)
	}()
	select {
	case gone := <-done:
		return gone
	case <-release:
		c.SetReadDeadline(time.Now())
		gone := <-done
		c.SetReadDeadline(time.Time{})
		return gone
	}
}

func isTimeout(err error) bool {
	ne, ok := err.(net.Error)
	return ok && ne.Timeout()
}

// waitOf reads "retry after N seconds" from a failure's text.
func waitOf(msg string) time.Duration {
	i := strings.Index(msg, "retry after ")
	if i < 0 {
		return 0
	}
	var n int
	fmt.Sscanf(msg[i+len("retry after "):], "%d", &n)
	return time.Duration(n) * time.Second
}
