package netguard

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

func TestCheckRefusesEveryLocalRange(t *testing.T) {
	g := &Guard{}
	open := &Guard{AllowPrivate: true}
	for _, c := range []struct {
		ip     string
		reason string // "" = allowed
		always bool
	}{
		{"127.0.0.1", "loopback", false}, {"127.8.9.10", "loopback", false}, {"::1", "loopback", false},
		{"::ffff:127.0.0.1", "loopback", false},
		{"10.1.2.3", "private", false}, {"172.16.0.1", "private", false}, {"172.31.255.255", "private", false},
		{"192.168.1.1", "private", false}, {"fd12:3456::1", "unique-local", false}, {"fc00::1", "unique-local", false},
		{"169.254.1.1", "link-local", false}, {"fe80::1", "link-local", false},
		{"100.64.0.1", "carrier-grade NAT", false}, {"100.127.255.255", "carrier-grade NAT", false},
		{"0.0.0.0", "unspecified", false}, {"::", "unspecified", false}, {"224.0.0.1", "link-local", false},
		{"239.1.1.1", "multicast", false}, {"255.255.255.255", "broadcast", false}, {"240.0.0.1", "reserved", false},
		{"64:ff9b::7f00:1", "loopback", false}, {"2002:a00:1::", "private", false},
		{"169.254.169.254", "cloud metadata", true}, {"fd00:ec2::254", "cloud metadata", true},
		{"100.100.100.200", "cloud metadata", true}, {"::ffff:169.254.169.254", "cloud metadata", true},
		{"93.184.216.34", "", false}, {"2606:4700::1111", "", false}, {"100.128.0.1", "", false}, {"172.32.0.1", "", false},
	} {
		ip := netip.MustParseAddr(c.ip)
		err := g.Check(ip)
		var be *BlockedError
		switch {
		case c.reason == "" && err != nil:
			t.Errorf("%s refused: %v", c.ip, err)
		case c.reason != "" && (!errors.As(err, &be) || be.Reason != c.reason || !errors.Is(err, ErrBlocked)):
			t.Errorf("%s: %v, want %s", c.ip, err, c.reason)
		}
		if err := open.Check(ip); (err != nil) != c.always {
			t.Errorf("%s with allow_private: %v", c.ip, err)
		}
	}
}

// page is a local server counting the requests it answered.
func page(t *testing.T, h http.HandlerFunc) (*httptest.Server, *atomic.Int32) {
	var n atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		h(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv, &n
}

func addrOf(t *testing.T, srv *httptest.Server) netip.AddrPort {
	u, _ := url.Parse(srv.URL)
	return netip.MustParseAddrPort(u.Host)
}

func get(c *http.Client, u string) (string, error) {
	resp, err := c.Get(u)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return string(b), err
}

func TestTheClientRefusesLoopbackUnlessAllowed(t *testing.T) {
	srv, hits := page(t, func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "hello") })
	_, err := get((&Guard{}).Client(ClientOptions{}), srv.URL)
	if !errors.Is(err, ErrBlocked) || !strings.Contains(err.Error(), "loopback") || !strings.Contains(err.Error(), "web.allow_private") {
		t.Fatalf("err %v", err)
	}
	if hits.Load() != 0 {
		t.Fatal("the request reached the server")
	}
	if body, err := get((&Guard{AllowPrivate: true}).Client(ClientOptions{}), srv.URL); err != nil || body != "hello" {
		t.Fatalf("allow_private: %q %v", body, err)
	}
}

// Each redirect hop dials anew, so a page that redirects to a private
// address (or a metadata endpoint) is refused at the hop.
func TestRedirectsToPrivateAddressesAreRefused(t *testing.T) {
	inside, insideHits := page(t, func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "secret") })
	var target string
	outside, _ := page(t, func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, target, http.StatusFound) })
	g := &Guard{AllowAddrs: []netip.AddrPort{addrOf(t, outside)}} // only the first hop is trusted
	for _, to := range []string{inside.URL + "/admin", "http://169.254.169.254/latest/meta-data/", "http://10.0.0.1/", "http://[::1]:1/"} {
		target = to
		_, err := get(g.Client(ClientOptions{}), outside.URL)
		if !errors.Is(err, ErrBlocked) {
			t.Errorf("redirect to %s: %v", to, err)
		}
	}
	if insideHits.Load() != 0 {
		t.Fatal("a redirect reached the private server")
	}
}

func TestRedirectsAreBounded(t *testing.T) {
	var srv *httptest.Server
	srv, _ = page(t, func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, srv.URL+r.URL.Path+"x", http.StatusFound)
	})
	_, err := get((&Guard{AllowPrivate: true}).Client(ClientOptions{MaxRedirects: 3}), srv.URL+"/")
	if !errors.Is(err, ErrTooManyRedirects) {
		t.Fatalf("err %v", err)
	}
}

// rebinding answers the first lookup with a public address and every
// later one with loopback: what a DNS-rebinding attacker's server does to
// get past a check made before the connection.
type rebinding struct {
	mu    sync.Mutex
	calls int
}

func (r *rebinding) LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.calls++
	if r.calls == 1 {
		return []netip.Addr{netip.MustParseAddr("93.184.216.34")}, nil
	}
	return []netip.Addr{netip.MustParseAddr("127.0.0.1")}, nil
}

func TestDNSRebindingIsCaughtAtConnectTime(t *testing.T) {
	srv, hits := page(t, func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "secret") })
	port := addrOf(t, srv).Port()
	g := &Guard{Resolver: &rebinding{}}
	if err := g.CheckHost(context.Background(), "rebind.example"); err != nil {
		t.Fatalf("the early check saw the public answer and should pass: %v", err)
	}
	_, err := get(g.Client(ClientOptions{}), fmt.Sprintf("http://rebind.example:%d/", port))
	var be *BlockedError
	if !errors.As(err, &be) || be.Addr.String() != "127.0.0.1" {
		t.Fatalf("err %v", err)
	}
	if hits.Load() != 0 {
		t.Fatal("the rebound name reached the loopback server")
	}
}
