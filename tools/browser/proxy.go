package browser

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/hermes-go/hermes/internal/netguard"
)

// proxy is the HTTP proxy a launched browser sends all its traffic
// through (--proxy-server, loopback included): every connection is dialled
// by the guard, which checks the address it connects to after resolving
// the name. It catches what the Fetch domain does not pause (WebSocket
// connections) and a name that resolves to a local address only on the
// second look (DNS rebinding).
type proxy struct {
	guard   *netguard.Guard
	refused func(string)
	ln      net.Listener
	srv     *http.Server
	client  *http.Client

	mu    sync.Mutex
	conns map[net.Conn]struct{} // the tunnels' connections, closed with the proxy
}

// startProxy listens on a loopback port of its own.
func startProxy(g *netguard.Guard, refused func(string)) (*proxy, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("browser: proxy: %w", err)
	}
	p := &proxy{guard: g, refused: refused, ln: ln, conns: map[net.Conn]struct{}{}}
	p.client = g.Client(netguard.ClientOptions{MaxRedirects: -1})
	p.client.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	p.srv = &http.Server{Handler: p, ReadHeaderTimeout: 30 * time.Second}
	go p.srv.Serve(ln)
	return p, nil
}

// addr is the proxy's host:port.
func (p *proxy) addr() string { return p.ln.Addr().String() }

func (p *proxy) close() {
	p.srv.Close()
	p.mu.Lock()
	defer p.mu.Unlock()
	for c := range p.conns {
		c.Close()
	}
	p.conns = nil
}

func (p *proxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodConnect {
		p.tunnel(w, r)
		return
	}
	if r.URL.Host == "" || (r.URL.Scheme != "http" && r.URL.Scheme != "ws") {
		http.Error(w, "not a proxy request", http.StatusBadRequest)
		return
	}
	if strings.EqualFold(r.Header.Get("Upgrade"), "websocket") {
		// A ws:// connection: tunnel it like CONNECT, the request
		// written to the upstream as it came.
		p.upgrade(w, r)
		return
	}
	out := r.Clone(r.Context())
	out.RequestURI = ""
	for _, h := range []string{"Proxy-Connection", "Proxy-Authorization", "Connection", "Keep-Alive", "Te", "Trailer", "Upgrade"} {
		out.Header.Del(h)
	}
	resp, err := p.client.Do(out)
	if err != nil {
		p.refuse(w, r.URL.Host, err)
		return
	}
	defer resp.Body.Close()
	for k, vs := range resp.Header {
		for _, v := range vs {
			w.Header().Add(k, v)
		}
	}
	w.WriteHeader(resp.StatusCode)
	io.Copy(w, resp.Body)
}

// refuse answers a connection that failed; one the guard refused is
// remembered for the next result.
func (p *proxy) refuse(w http.ResponseWriter, host string, err error) {
	if !errors.Is(err, netguard.ErrBlocked) {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	if p.refused != nil {
		p.refused(fmt.Sprintf("refused a connection to %s: %v", host, err))
	}
	// Hang up: the browser then fails the request as a network error,
	// where an error page would load as the page asked for.
	if hj, ok := w.(http.Hijacker); ok {
		if conn, _, err := hj.Hijack(); err == nil {
			conn.Close()
			return
		}
	}
	http.Error(w, err.Error(), http.StatusForbidden)
}

// tunnel joins the browser to host:port (https and wss), dialled by the
// guard.
func (p *proxy) tunnel(w http.ResponseWriter, r *http.Request) {
	up, err := p.guard.DialContext(r.Context(), "tcp", r.Host)
	if err != nil {
		p.refuse(w, r.Host, err)
		return
	}
	hj, ok := w.(http.Hijacker)
	if !ok {
		up.Close()
		http.Error(w, "cannot tunnel", http.StatusInternalServerError)
		return
	}
	conn, buf, err := hj.Hijack()
	if err != nil {
		up.Close()
		return
	}
	if _, err := conn.Write([]byte("HTTP/1.1 200 Connection established\r\n\r\n")); err != nil {
		conn.Close()
		up.Close()
		return
	}
	p.splice(conn, buf.Reader, up)
}

// upgrade passes a ws:// request to its host and then its frames both ways.
func (p *proxy) upgrade(w http.ResponseWriter, r *http.Request) {
	host := r.URL.Host
	if r.URL.Port() == "" {
		host = net.JoinHostPort(r.URL.Hostname(), "80")
	}
	up, err := p.guard.DialContext(r.Context(), "tcp", host)
	if err != nil {
		p.refuse(w, host, err)
		return
	}
	out := r.Clone(context.Background())
	out.Header.Del("Proxy-Connection")
	if err := out.Write(up); err != nil {
		up.Close()
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	hj, ok := w.(http.Hijacker)
	if !ok {
		up.Close()
		return
	}
	conn, buf, err := hj.Hijack()
	if err != nil {
		up.Close()
		return
	}
	p.splice(conn, buf.Reader, up)
}

// splice copies both ways until either side ends.
func (p *proxy) splice(client net.Conn, pending io.Reader, up net.Conn) {
	p.mu.Lock()
	if p.conns == nil {
		p.mu.Unlock()
		client.Close()
		up.Close()
		return
	}
	p.conns[client], p.conns[up] = struct{}{}, struct{}{}
	p.mu.Unlock()
	go func() {
		defer func() {
			p.mu.Lock()
			delete(p.conns, client)
			delete(p.conns, up)
			p.mu.Unlock()
		}()
		done := make(chan struct{}, 2)
		go func() { io.Copy(up, io.MultiReader(pending, client)); done <- struct{}{} }()
		go func() { io.Copy(client, up); done <- struct{}{} }()
		<-done
		client.Close()
		up.Close()
		<-done
	}()
}
