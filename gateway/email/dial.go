package email

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"

	"github.com/emersion/go-imap/v2/imapclient"
	"github.com/emersion/go-sasl"
	"github.com/emersion/go-smtp"
)

// errNoTLS refuses to send a password in clear to a host that is not
// this machine.
var errNoTLS = errors.New("the server offers no STARTTLS, and a password is sent without TLS only to a loopback host")

func (a *Adapter) dial(ctx context.Context, e endpoint) (net.Conn, error) {
	d := &net.Dialer{Timeout: dialTimeout}
	conn, err := d.DialContext(ctx, "tcp", e.addr)
	if err != nil {
		return nil, err
	}
	if e.implicitTLS {
		tc := tls.Client(conn, a.tlsConfig(e.host))
		if err := tc.HandshakeContext(ctx); err != nil {
			conn.Close()
			return nil, fmt.Errorf("TLS with %s: %w", e.addr, err)
		}
		return tc, nil
	}
	return conn, nil
}

// dialIMAP connects to the IMAP server: TLS (imaps), STARTTLS (imap),
// or, to a loopback host whose server has no STARTTLS, neither.
func (a *Adapter) dialIMAP(ctx context.Context, h *imapclient.UnilateralDataHandler) (*imapclient.Client, error) {
	conn, err := a.dial(ctx, a.imap)
	if err != nil {
		return nil, err
	}
	o := &imapclient.Options{TLSConfig: a.tlsConfig(a.imap.host), UnilateralDataHandler: h}
	if a.imap.implicitTLS || a.imap.plain {
		c := imapclient.New(conn, o)
		if err := c.WaitGreeting(); err != nil {
			c.Close()
			return nil, fmt.Errorf("greeting: %w", err)
		}
		return c, nil
	}
	c, err := imapclient.NewStartTLS(conn, o)
	if err != nil {
		conn.Close()
		return nil, fmt.Errorf("STARTTLS with %s: %w (%w)", a.imap.addr, err, errNoTLS)
	}
	return c, nil
}

// dialSMTP connects and logs in to the SMTP server, with the same rules
// as dialIMAP.
func (a *Adapter) dialSMTP(ctx context.Context) (*smtp.Client, net.Conn, error) {
	conn, err := a.dial(ctx, a.smtp)
	if err != nil {
		return nil, nil, err
	}
	var c *smtp.Client
	if a.smtp.implicitTLS || a.smtp.plain {
		c = smtp.NewClient(conn)
	} else if c, err = smtp.NewClientStartTLS(conn, a.tlsConfig(a.smtp.host)); err != nil {
		conn.Close()
		return nil, nil, fmt.Errorf("STARTTLS with %s: %w (%w)", a.smtp.addr, err, errNoTLS)
	}
	if err := c.Hello(a.domain); err != nil {
		c.Close()
		return nil, nil, err
	}
	if a.o.Password != "" {
		if ok, _ := c.Extension("AUTH"); ok {
			if err := c.Auth(sasl.NewPlainClient("", a.o.User, a.o.Password)); err != nil {
				c.Close()
				return nil, nil, err
			}
		}
	}
	return c, conn, nil
}
