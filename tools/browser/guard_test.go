package browser

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hermes-go/hermes/internal/netguard"
)

// internal is a service on a private address the pages must not reach:
// it counts the requests that got through.
func internal(t testing.TB) (*httptest.Server, *atomic.Int32) {
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		w.Header().Set("Content-Type", "text/html")
		w.Write([]byte("<title>internal</title><p>internal secret</p>"))
	}))
	t.Cleanup(srv.Close)
	return srv, &hits
}

// onlyPage allows the page's own server (an exact address:port, as a
// user's one trusted local service would be) and refuses every other
// private address, as web.allow_private off does.
func onlyPage(t testing.TB, srv *httptest.Server) *netguard.Guard {
	u, _ := url.Parse(srv.URL)
	ap, err := netip.ParseAddrPort(u.Host)
	if err != nil {
		t.Fatal(err)
	}
	return &netguard.Guard{AllowAddrs: []netip.AddrPort{ap}}
}

// With web.allow_private off, a page cannot reach a loopback address:
// its image, script request and form to another local service are
// refused before they leave the browser, and the result says so and why.
func TestPageRequestsToPrivateAddressesAreRefused(t *testing.T) {
	inner, hits := internal(t)
	page := `<!doctype html><title>Lure</title><h1>Lure</h1>
<img src="` + inner.URL + `/pixel.png" alt="pixel">
<script>fetch("` + inner.URL + `/api").catch(e => console.log("fetch failed: " + e.message))</script>`
	srv := site(t, map[string]string{"/": page})
	b := newTestBrowser(t, Options{Guard: onlyPage(t, srv)})

	res := mustOK(t, call(t, b, "browser_navigate", map[string]any{"url": srv.URL}))
	mustContain(t, res, `heading "Lure"`, "Blocked request: refused "+inner.URL+"/", "127.0.0.1 is a loopback address", "web.allow_private")
	console := mustOK(t, call(t, b, "browser_console", nil))
	mustContain(t, console, "fetch failed")
	if n := hits.Load(); n != 0 {
		t.Fatalf("the private service got %d requests", n)
	}

	// Navigating there is refused before the browser is asked.
	nav := call(t, b, "browser_navigate", map[string]any{"url": inner.URL + "/"})
	if !nav.IsError || !strings.Contains(nav.Content, "refused "+inner.URL+"/: 127.0.0.1 is a loopback address") {
		t.Fatalf("navigation to a private address:\n%s", nav.Content)
	}
	if n := hits.Load(); n != 0 {
		t.Fatalf("the private service got %d requests", n)
	}
}

// A redirect to a refused address is refused too: each hop is checked.
func TestRedirectToPrivateAddressIsRefused(t *testing.T) {
	inner, hits := internal(t)
	srv := site(t, map[string]string{"/": `<title>Start</title><a href="/go">go</a>`}, func(mux *http.ServeMux) {
		mux.HandleFunc("/go", func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, inner.URL+"/admin", http.StatusFound)
		})
	})
	b := newTestBrowser(t, Options{Guard: onlyPage(t, srv)})
	res := call(t, b, "browser_navigate", map[string]any{"url": srv.URL + "/go"})
	if !res.IsError || !strings.Contains(res.Content, "refused "+inner.URL+"/admin: 127.0.0.1 is a loopback address") {
		t.Fatalf("redirect to a private address:\n%s", res.Content)
	}
	if n := hits.Load(); n != 0 {
		t.Fatalf("the private service got %d requests", n)
	}
}

// web.allow_private lets pages reach loopback; cloud metadata stays
// refused even then.
func TestAllowPrivateOpensLoopbackNotMetadata(t *testing.T) {
	inner, hits := internal(t)
	b := newTestBrowser(t, Options{Guard: &netguard.Guard{AllowPrivate: true}})
	mustContain(t, mustOK(t, call(t, b, "browser_navigate", map[string]any{"url": inner.URL})), `Title: "internal"`)
	if hits.Load() == 0 {
		t.Fatal("allow_private did not let the page load")
	}
	res := call(t, b, "browser_navigate", map[string]any{"url": "http://169.254.169.254/latest/meta-data/"})
	if !res.IsError || !strings.Contains(res.Content, "cloud metadata") {
		t.Fatalf("metadata address:\n%s", res.Content)
	}
}

// file:// pages open only inside the workspace (symbolic links followed);
// other schemes are refused.
func TestFileURLsOnlyInsideTheWorkspace(t *testing.T) {
	ws := t.TempDir()
	outside := t.TempDir()
	os.WriteFile(filepath.Join(ws, "report.html"), []byte("<title>Report</title><h1>Quarterly</h1>"), 0o644)
	os.WriteFile(filepath.Join(outside, "secret.html"), []byte("<title>Secret</title><h1>Secret</h1>"), 0o644)
	os.Symlink(filepath.Join(outside, "secret.html"), filepath.Join(ws, "link.html"))
	b := newTestBrowser(t, Options{Workdir: ws})

	mustContain(t, mustOK(t, call(t, b, "browser_navigate", map[string]any{"url": "file://" + filepath.Join(ws, "report.html")})), `heading "Quarterly"`)
	for _, u := range []string{
		"file://" + filepath.Join(outside, "secret.html"),
		"file://" + filepath.Join(ws, "link.html"),
		"file://" + ws + "/../" + filepath.Base(outside) + "/secret.html",
	} {
		res := call(t, b, "browser_navigate", map[string]any{"url": u})
		if !res.IsError || !strings.Contains(res.Content, "file outside the workspace") {
			t.Fatalf("%s:\n%s", u, res.Content)
		}
	}
	res := call(t, b, "browser_navigate", map[string]any{"url": "chrome://settings"})
	if !res.IsError || !strings.Contains(res.Content, "scheme is not allowed") {
		t.Fatalf("chrome://:\n%s", res.Content)
	}
}

// A file page cannot pull in files from outside the workspace either.
func TestFilePageCannotLoadFilesOutsideTheWorkspace(t *testing.T) {
	ws := t.TempDir()
	outside := t.TempDir()
	os.WriteFile(filepath.Join(outside, "secret.txt"), []byte("TOPSECRET"), 0o644)
	page := `<title>Frame</title><h1>Frame</h1><img alt="leak" src="file://` + filepath.Join(outside, "secret.txt") + `">
<script>fetch("file://` + filepath.Join(outside, "secret.txt") + `").then(r => r.text()).then(t => console.log("read " + t), e => console.log("fetch failed"))</script>`
	os.WriteFile(filepath.Join(ws, "frame.html"), []byte(page), 0o644)
	b := newTestBrowser(t, Options{Workdir: ws})
	res := mustOK(t, call(t, b, "browser_navigate", map[string]any{"url": "file://" + filepath.Join(ws, "frame.html")}))
	mustContain(t, res, "Blocked request: refused file://"+filepath.Join(outside, "secret.txt")+": file outside the workspace")
	console := mustOK(t, call(t, b, "browser_console", nil))
	if strings.Contains(console, "TOPSECRET") || !strings.Contains(console, "fetch failed") {
		t.Fatalf("the page read a file outside the workspace:\n%s", console)
	}
}

// A window the page opens cannot reach a refused address in the moment
// before it is closed: the guard pauses every request of the browser,
// not only the tab's.
func TestWindowsThePageOpensAreGuardedToo(t *testing.T) {
	inner, hits := internal(t)
	srv := site(t, map[string]string{"/": `<title>Opener</title><button onclick="window.open('` + inner.URL + `/popup')">Open</button>
<script>const w = new Worker(URL.createObjectURL(new Blob(["fetch('` + inner.URL + `/worker').catch(() => {})"])));</script>`})
	b := newTestBrowser(t, Options{Guard: onlyPage(t, srv)})
	snap := mustOK(t, call(t, b, "browser_navigate", map[string]any{"url": srv.URL}))
	res := snap + mustOK(t, call(t, b, "browser_click", map[string]any{"ref": refOf(t, snap, "button", "Open")}))
	deadline := time.Now().Add(10 * time.Second)
	// The popup's request is refused, unless the popup is closed first.
	for !strings.Contains(res, "new window for "+inner.URL+"/popup, which was closed") || !strings.Contains(res, "/worker: 127.0.0.1 is a loopback address") {
		if time.Now().After(deadline) {
			t.Fatalf("the popup was not closed or the worker's request was not refused:\n%s", res)
		}
		time.Sleep(50 * time.Millisecond)
		res += mustOK(t, call(t, b, "browser_console", nil))
	}
	if n := hits.Load(); n != 0 {
		t.Fatalf("the private service got %d requests", n)
	}
}

// A WebSocket to a private address is refused too: the Fetch domain does
// not pause it, the guarded proxy every connection goes through does.
func TestWebSocketToPrivateAddressIsRefused(t *testing.T) {
	inner, hits := internal(t)
	ws := "ws" + strings.TrimPrefix(inner.URL, "http") + "/socket"
	srv := site(t, map[string]string{"/": `<title>Socket</title><script>
const s = new WebSocket("` + ws + `");
s.onopen = () => console.log("socket open");
s.onerror = () => console.log("socket refused");
</script>`})
	b := newTestBrowser(t, Options{Guard: onlyPage(t, srv)})
	res := mustOK(t, call(t, b, "browser_navigate", map[string]any{"url": srv.URL}))
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(res, "socket refused") {
		if time.Now().After(deadline) {
			t.Fatalf("the socket was not refused:\n%s", res)
		}
		time.Sleep(50 * time.Millisecond)
		res += mustOK(t, call(t, b, "browser_console", nil))
	}
	mustContain(t, res, "refused a connection to "+strings.TrimPrefix(inner.URL, "http://"))
	if n := hits.Load(); n != 0 {
		t.Fatalf("the private service got %d requests", n)
	}
}

// rebinder answers with a public address the first times a name is
// looked up and with loopback after: DNS rebinding.
type rebinder struct {
	mu    sync.Mutex
	calls int
}

func (r *rebinder) LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error) {
	if host != "rebind.example" {
		return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.calls++
	if r.calls <= 2 {
		return []netip.Addr{netip.MustParseAddr("93.184.216.34")}, nil
	}
	return []netip.Addr{netip.MustParseAddr("127.0.0.1")}, nil
}

// A name that resolves to a public address when checked and to loopback
// when connected to is refused at connect time.
func TestDNSRebindingIsRefusedAtConnectTime(t *testing.T) {
	inner, hits := internal(t)
	u, _ := url.Parse(inner.URL)
	r := &rebinder{}
	b := newTestBrowser(t, Options{Guard: &netguard.Guard{Resolver: r}})
	res := call(t, b, "browser_navigate", map[string]any{"url": "http://rebind.example:" + u.Port() + "/"})
	if !res.IsError || !strings.Contains(res.Content, "127.0.0.1 (loopback address)") {
		t.Fatalf("a rebound name:\n%s", res.Content)
	}
	if n := hits.Load(); n != 0 || r.calls < 3 {
		t.Fatalf("the private service got %d requests (%d lookups)", n, r.calls)
	}
}
