package netproxy

import (
	"bufio"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"golang.org/x/net/proxy"

	"github.com/hermes-go/hermes/sandbox/netallow"
	"github.com/hermes-go/hermes/tool/approval"
)

// world maps public names to servers on 127.0.0.1, so that a test reaches
// "registry.npmjs.org" without the internet, and counts the dials.
type world struct {
	mu    sync.Mutex
	addrs map[string]string // "name:port" -> "127.0.0.1:port"
	dials []string
}

func (w *world) dial(ctx context.Context, network, addr string) (net.Conn, error) {
	w.mu.Lock()
	w.dials = append(w.dials, addr)
	real, ok := w.addrs[addr]
	w.mu.Unlock()
	if !ok {
		return nil, fmt.Errorf("dial %s: no such host in this test", addr)
	}
	var d net.Dialer
	return d.DialContext(ctx, network, real)
}

func (w *world) dialed() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]string(nil), w.dials...)
}

// serve starts s on 127.0.0.1 and returns its address; the test's end
// stops it.
func serve(t *testing.T, s *Server) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Serve(ctx, l) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Serve: %v", err)
		}
	})
	return l.Addr().String()
}

func allow(t *testing.T, patterns ...string) *netallow.Allowlist {
	t.Helper()
	a, err := netallow.NewAllowlist(patterns)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// httpsClient trusts ts and goes through the proxy at addr.
func httpsClient(ts *httptest.Server, addr string) *http.Client {
	pool := x509.NewCertPool()
	pool.AddCert(ts.Certificate())
	return &http.Client{Transport: &http.Transport{
		Proxy:           http.ProxyURL(&url.URL{Scheme: "http", Host: addr}),
		TLSClientConfig: &tls.Config{RootCAs: pool, ServerName: "example.com"}, // the test certificate's name
	}}
}

func TestConnectTunnelsToAnAllowedDomain(t *testing.T) {
	ts := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "package %s from %s", r.URL.Path, r.Host)
	}))
	defer ts.Close()
	w := &world{addrs: map[string]string{"registry.npmjs.org:443": ts.Listener.Addr().String()}}
	addr := serve(t, &Server{Allow: allow(t, "registry.npmjs.org"), Dial: w.dial})

	resp, err := httpsClient(ts, addr).Get("https://registry.npmjs.org/left-pad")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 || string(body) != "package /left-pad from registry.npmjs.org" {
		t.Fatalf("%d %q", resp.StatusCode, body)
	}
}

func TestPlainHTTPIsForwardedWithoutProxyHeaders(t *testing.T) {
	var seen http.Header
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		seen = r.Header.Clone()
		body, _ := io.ReadAll(r.Body)
		fmt.Fprintf(w, "%s %s %s body=%s", r.Method, r.Host, r.URL.RequestURI(), body)
	}))
	defer ts.Close()
	w := &world{addrs: map[string]string{"deb.debian.org:80": ts.Listener.Addr().String()}}
	addr := serve(t, &Server{Allow: allow(t, "deb.debian.org"), Dial: w.dial})

	proxyURL := &url.URL{Scheme: "http", Host: addr, User: url.UserPassword("u", "secret")}
	c := &http.Client{Transport: &http.Transport{Proxy: http.ProxyURL(proxyURL)}}
	resp, err := c.Post("http://deb.debian.org/debian/dists?x=1", "text/plain", strings.NewReader("payload"))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if string(body) != "POST deb.debian.org /debian/dists?x=1 body=payload" {
		t.Fatalf("%d %q", resp.StatusCode, body)
	}
	if seen.Get("Proxy-Authorization") != "" || seen.Get("Proxy-Connection") != "" {
		t.Errorf("proxy headers reached the server: %v", seen)
	}
}

func TestARefusedDomainGets403SayingHowToAllowIt(t *testing.T) {
	w := &world{}
	addr := serve(t, &Server{Allow: allow(t, "pypi.org"), Dial: w.dial})
	proxied := &http.Client{Transport: &http.Transport{Proxy: http.ProxyURL(&url.URL{Scheme: "http", Host: addr})}}

	resp, err := proxied.Get("http://exfil.example.net/upload")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden || !strings.Contains(string(body), "exfil.example.net is not in sandbox.network.allow") ||
		!strings.Contains(string(body), "add it to sandbox.network.allow in config.yaml") {
		t.Errorf("plain HTTP: %d %q", resp.StatusCode, body)
	}

	// CONNECT: the status line carries the reason, since tools print it.
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	fmt.Fprint(c, "CONNECT exfil.example.net:443 HTTP/1.1\r\nHost: exfil.example.net:443\r\n\r\n")
	resp, err = http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatal(err)
	}
	body, _ = io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusForbidden || !strings.Contains(resp.Status, "exfil.example.net is not in sandbox.network.allow") ||
		!strings.Contains(string(body), "sandbox.network.allow") {
		t.Errorf("CONNECT: %q %q", resp.Status, body)
	}
	if d := w.dialed(); len(d) != 0 {
		t.Errorf("the proxy dialed a refused host: %v", d)
	}
}

func TestAddressesAreRefusedUnlessListed(t *testing.T) {
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "reached") }))
	defer ts.Close()
	host, port, _ := net.SplitHostPort(ts.Listener.Addr().String())
	var asked atomic.Int32
	ask := func(context.Context, string) (approval.Choice, error) { asked.Add(1); return approval.Always, nil }
	w := &world{addrs: map[string]string{ts.Listener.Addr().String(): ts.Listener.Addr().String()}}
	for _, tt := range []struct {
		allow []string
		want  int
	}{{[]string{"localhost"}, http.StatusForbidden}, {[]string{host}, http.StatusOK}} {
		addr := serve(t, &Server{Allow: allow(t, tt.allow...), Ask: ask, Dial: w.dial})
		c := &http.Client{Transport: &http.Transport{Proxy: http.ProxyURL(&url.URL{Scheme: "http", Host: addr})}}
		resp, err := c.Get("http://" + net.JoinHostPort(host, port) + "/")
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != tt.want {
			t.Errorf("allow %v: %d %q, want %d", tt.allow, resp.StatusCode, body, tt.want)
		}
		if tt.want == http.StatusForbidden && !strings.Contains(string(body), "is an IP address") {
			t.Errorf("the refusal of an address must say why: %q", body)
		}
	}
	if n := asked.Load(); n != 0 {
		t.Errorf("the user was asked about an IP address %d times", n)
	}
}

// echo is a TCP server that answers every line with "echo: " and the line.
func echo(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				sc := bufio.NewScanner(c)
				for sc.Scan() {
					fmt.Fprintf(c, "echo: %s\n", sc.Text())
				}
			}()
		}
	}()
	return l.Addr().String()
}

func TestSOCKS5ConnectsToAllowedDomainsOnly(t *testing.T) {
	w := &world{addrs: map[string]string{"github.com:22": echo(t)}}
	addr := serve(t, &Server{Allow: allow(t, "github.com"), Dial: w.dial})
	d, err := proxy.SOCKS5("tcp", addr, nil, proxy.Direct)
	if err != nil {
		t.Fatal(err)
	}
	c, err := d.Dial("tcp", "github.com:22")
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintln(c, "hello")
	line, _ := bufio.NewReader(c).ReadString('\n')
	c.Close()
	if line != "echo: hello\n" {
		t.Fatalf("through SOCKS5: %q", line)
	}
	for _, target := range []string{"gist.example.org:443", "127.0.0.1:22"} {
		if _, err := d.Dial("tcp", target); err == nil || !strings.Contains(err.Error(), "connection not allowed by ruleset") {
			t.Errorf("SOCKS5 to %s: %v, want connection not allowed", target, err)
		}
	}
	if got := w.dialed(); len(got) != 1 {
		t.Errorf("dials %v, want only the allowed one", got)
	}
}

func TestAskingAboutADomain(t *testing.T) {
	up := echo(t)
	hosts := []string{"a.example.org:7", "b.example.org:7", "c.example.org:7", "d.example.org:7"}
	w := &world{addrs: map[string]string{}}
	for _, h := range hosts {
		w.addrs[h] = up
	}
	answers := map[string]approval.Choice{"a.example.org": approval.Once, "b.example.org": approval.Session,
		"c.example.org": approval.Deny, "d.example.org": approval.Always}
	var mu sync.Mutex
	var asked []string
	ask := func(_ context.Context, host string) (approval.Choice, error) {
		mu.Lock()
		defer mu.Unlock()
		asked = append(asked, host)
		return answers[host], nil
	}
	questions := func() string {
		mu.Lock()
		defer mu.Unlock()
		q := strings.Join(asked, " ")
		asked = nil
		return q
	}
	session := allow(t)
	dial := func(addr, target string) error {
		d, _ := proxy.SOCKS5("tcp", addr, nil, proxy.Direct)
		c, err := d.Dial("tcp", target)
		if err == nil {
			c.Close()
		}
		return err
	}
	first := serve(t, &Server{Allow: session, Ask: ask, Dial: w.dial})
	for range 2 {
		for _, h := range hosts {
			err := dial(first, h)
			if denied := strings.HasPrefix(h, "c."); (err != nil) != denied {
				t.Errorf("%s: %v", h, err)
			}
		}
	}
	if q := questions(); q != "a.example.org b.example.org c.example.org d.example.org" {
		t.Errorf("asked %q, want each host once: an answer holds for the rest of the command", q)
	}
	// The next command of the session: "once" is gone, "session" and
	// "always" stay, and a refusal is asked again.
	next := serve(t, &Server{Allow: session, Ask: ask, Dial: w.dial})
	for _, h := range hosts {
		dial(next, h)
	}
	if q := questions(); q != "a.example.org c.example.org" {
		t.Errorf("the next command asked %q, want a.example.org and c.example.org", q)
	}
}

func TestWithoutAnAllowlistAnAnswerHoldsForTheServer(t *testing.T) {
	w := &world{addrs: map[string]string{"pkg.example.org:7": echo(t)}}
	var asked atomic.Int32
	ask := func(context.Context, string) (approval.Choice, error) { asked.Add(1); return approval.Session, nil }
	addr := serve(t, &Server{Ask: ask, Dial: w.dial})
	d, _ := proxy.SOCKS5("tcp", addr, nil, proxy.Direct)
	for range 2 {
		c, err := d.Dial("tcp", "pkg.example.org:7")
		if err != nil {
			t.Fatal(err)
		}
		c.Close()
	}
	if n := asked.Load(); n != 1 {
		t.Errorf("asked %d times, want once", n)
	}
}

func TestARefusalByTheUserSaysSo(t *testing.T) {
	for _, tt := range []struct {
		name string
		ask  func(context.Context, string) (approval.Choice, error)
		want string
	}{
		{"no one to ask", nil, "pkg.example.org is not in sandbox.network.allow, so"},
		{"denied", func(context.Context, string) (approval.Choice, error) { return approval.Deny, nil }, "the user refused the connection"},
		{"failed", func(context.Context, string) (approval.Choice, error) { return approval.Deny, errors.New("timed out") }, "could not be allowed: timed out"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			addr := serve(t, &Server{Allow: allow(t), Ask: tt.ask})
			c := &http.Client{Transport: &http.Transport{Proxy: http.ProxyURL(&url.URL{Scheme: "http", Host: addr})}}
			resp, err := c.Get("http://pkg.example.org/")
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != http.StatusForbidden || !strings.Contains(string(body), tt.want) {
				t.Errorf("%d %q, want 403 saying %q", resp.StatusCode, body, tt.want)
			}
		})
	}
}

func TestConnectionsToOneHostShareOneQuestion(t *testing.T) {
	w := &world{addrs: map[string]string{"pkg.example.org:7": echo(t)}}
	var asks atomic.Int32
	release := make(chan struct{})
	ask := func(ctx context.Context, host string) (approval.Choice, error) {
		asks.Add(1)
		<-release
		return approval.Once, nil
	}
	s := &Server{Allow: allow(t), Ask: ask, Dial: w.dial}
	addr := serve(t, s)
	errs := make(chan error, 3)
	for range 3 {
		go func() {
			d, _ := proxy.SOCKS5("tcp", addr, nil, proxy.Direct)
			c, err := d.Dial("tcp", "pkg.example.org:7")
			if err == nil {
				c.Close()
			}
			errs <- err
		}()
	}
	// One asks, two wait for its answer, which lets all three through.
	for {
		s.mu.Lock()
		n := s.waiters
		s.mu.Unlock()
		if n == 2 {
			break
		}
		runtime.Gosched()
	}
	close(release)
	for range 3 {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
	if n := asks.Load(); n != 1 {
		t.Errorf("asked %d times, want once", n)
	}
}

func TestStoppingTheServerEndsOpenTunnels(t *testing.T) {
	w := &world{addrs: map[string]string{"github.com:443": echo(t)}}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- (&Server{Allow: allow(t, "github.com"), Dial: w.dial}).Serve(ctx, l) }()
	c, err := net.Dial("tcp", l.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	fmt.Fprint(c, "CONNECT github.com:443 HTTP/1.1\r\n\r\n")
	br := bufio.NewReader(c)
	if line, _ := br.ReadString('\n'); !strings.HasPrefix(line, "HTTP/1.1 200") {
		t.Fatalf("CONNECT: %q", line)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("Serve: %v", err)
	}
	for {
		line, err := br.ReadString('\n')
		if err != nil {
			break // the tunnel ended
		}
		if line != "\r\n" {
			t.Fatalf("read %q", line)
		}
	}
	if _, err := net.Dial("tcp", l.Addr().String()); err == nil {
		t.Error("the listener still accepts")
	}
}
