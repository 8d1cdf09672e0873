package web

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hermes-go/hermes/internal/netguard"
	"github.com/hermes-go/hermes/llm"
	"github.com/hermes-go/hermes/llm/llmtest"
	"github.com/hermes-go/hermes/tool"
)

const article = `<!doctype html><html><head><title>Fixing the flaky test</title></head><body>
<nav><a href="/">Home</a> | <a href="/blog">Blog</a> | Subscribe to our newsletter</nav>
<article>
<h1>Fixing the flaky test</h1>
<p>The test failed one run in fifty. We traced it to a <a href="/posts/clock">shared clock</a>
that two goroutines advanced at once, and to a timeout that assumed a fast machine.</p>
<p>The fix injects the clock into the scheduler, so the test controls time and never sleeps.
It also removes the timeout entirely and asserts on the events the scheduler emits in order.</p>
<pre><code>go test -race -count=100 ./scheduler/...</code></pre>
<p>After the change the suite ran ten thousand times without a failure on a loaded machine.</p>
</article>
<footer>Copyright 2026. All rights reserved. Cookie settings.</footer>
</body></html>`

// site is a local web server with the pages the tests read.
func site(t *testing.T) *httptest.Server {
	mux := http.NewServeMux()
	mux.HandleFunc("/article", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, article)
	})
	mux.HandleFunc("/notes.txt", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		fmt.Fprint(w, "line one\nline two")
	})
	mux.HandleFunc("/data.json", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"name":"hermes","tags":["agent","go"]}`)
	})
	mux.HandleFunc("/paper.pdf", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/pdf")
		fmt.Fprint(w, "%PDF-1.7\n...")
	})
	mux.HandleFunc("/moved", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/article", http.StatusMovedPermanently)
	})
	mux.HandleFunc("/loop", func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, "/loop", http.StatusFound) })
	mux.HandleFunc("/slow", func(w http.ResponseWriter, r *http.Request) { <-r.Context().Done() })
	mux.HandleFunc("/huge", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		chunk := []byte(strings.Repeat("all work and no play ", 512))
		for i := 0; i < 5000; i++ { // about 50 MB, unless the reader stops
			if _, err := w.Write(chunk); err != nil {
				return
			}
		}
	})
	mux.HandleFunc("/long", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		fmt.Fprint(w, strings.Repeat("A long report about the quarterly numbers. ", 400))
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

// open is the guard with web.allow_private, for the loopback test pages.
var open = &netguard.Guard{AllowPrivate: true}

func newExtract(o ExtractOptions) tool.Tool {
	if o.Client == nil {
		o.Client = open.Client(netguard.ClientOptions{})
	}
	if o.MinInterval == 0 {
		o.MinInterval = -1
	}
	return NewExtract(o)
}

func extract(t *testing.T, tl tool.Tool, urls ...string) tool.Result {
	t.Helper()
	args, _ := json.Marshal(map[string]any{"urls": urls})
	res, err := tl.Run(context.Background(), tool.Call{Name: "web_extract", Args: args})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func TestExtractTurnsPagesIntoMarkdownTextAndJSON(t *testing.T) {
	srv := site(t)
	res := extract(t, newExtract(ExtractOptions{}), srv.URL+"/article", srv.URL+"/notes.txt", srv.URL+"/data.json")
	if res.IsError {
		t.Fatal(res.Content)
	}
	c := res.Content
	for _, want := range []string{
		"# " + srv.URL + "/article", "Title: Fixing the flaky test",
		"[shared clock](" + srv.URL + "/posts/clock)", // absolute link
		"go test -race -count=100 ./scheduler/...",
		"line one\nline two",
		"\"tags\": [\n    \"agent\",",
	} {
		if !strings.Contains(c, want) {
			t.Errorf("result lacks %q:\n%s", want, c)
		}
	}
	for _, boiler := range []string{"Subscribe to our newsletter", "Cookie settings"} {
		if strings.Contains(c, boiler) {
			t.Errorf("boilerplate %q kept:\n%s", boiler, c)
		}
	}
}

func TestFailuresAreReportedPerURL(t *testing.T) {
	srv := site(t)
	tl := newExtract(ExtractOptions{Timeout: 200 * time.Millisecond, MaxURLs: 6})
	res := extract(t, tl, srv.URL+"/missing", srv.URL+"/paper.pdf", srv.URL+"/slow", srv.URL+"/loop", "ftp://example.com/x", srv.URL+"/moved")
	if res.IsError {
		t.Fatalf("one page succeeded, the call must too:\n%s", res.Content)
	}
	sections := strings.Split(res.Content, "\n\n# ")
	if len(sections) != 6 {
		t.Fatalf("%d sections:\n%s", len(sections), res.Content)
	}
	for i, want := range []string{"Error: HTTP 404 Not Found", "PDF document", "Error: timed out after 200ms", "too many redirects", "not an http or https URL", "(redirected to " + srv.URL + "/article)"} {
		if !strings.Contains(sections[i], want) {
			t.Errorf("section %d lacks %q:\n%s", i, want, sections[i])
		}
	}
	all := extract(t, tl, srv.URL+"/missing")
	if !all.IsError {
		t.Fatal("a call where every URL failed must be an error")
	}
}

func TestAHugePageIsReadOnlyUpToTheCap(t *testing.T) {
	srv := site(t)
	res := extract(t, newExtract(ExtractOptions{MaxPageBytes: 64 << 10, MaxChars: 1000}), srv.URL+"/huge")
	if res.IsError || !strings.Contains(res.Content, "larger than 64.0 KB: only its first 64.0 KB were read") ||
		!strings.Contains(res.Content, "cut to its first 1000 of 65536 characters") || len(res.Content) > 2000 {
		t.Fatalf("%d bytes:\n%.500s", len(res.Content), res.Content)
	}
}

func TestLongPagesAreSummarisedAndSaySo(t *testing.T) {
	srv := site(t)
	model := llmtest.NewClient(t)
	model.Handle(func(r *llm.Request) llmtest.Reply {
		if !strings.Contains(r.Messages[1].Content, "quarterly numbers") {
			return llmtest.Reply{Text: "wrong page"}
		}
		return llmtest.Reply{Text: "The report covers the quarterly numbers."}
	})
	res := extract(t, newExtract(ExtractOptions{Summarizer: model, SummaryModel: "aux"}), srv.URL+"/long", srv.URL+"/notes.txt")
	if !strings.Contains(res.Content, "[summarised by the web_extract model: the page has 17200 characters]\n\nThe report covers the quarterly numbers.") {
		t.Fatal(res.Content)
	}
	if n := len(model.Requests()); n != 1 {
		t.Fatalf("%d summaries, want 1 (the short page is not summarised)", n)
	}
	if model.Requests()[0].Model != "aux" {
		t.Fatalf("model %q", model.Requests()[0].Model)
	}
}

func TestAFailedSummaryFallsBackToTheCutPage(t *testing.T) {
	srv := site(t)
	model := llmtest.NewClient(t)
	model.Enqueue(llmtest.Error(500, llmtest.OpenAIServerErrorBody))
	res := extract(t, newExtract(ExtractOptions{Summarizer: model, MaxChars: 100}), srv.URL+"/long")
	if res.IsError || !strings.Contains(res.Content, "the summary failed") || !strings.Contains(res.Content, "cut to its first 100 of 17200 characters") {
		t.Fatal(res.Content)
	}
}

// Requests to one host never overlap and are spaced MinInterval apart;
// the wait is on the injected clock, not the wall.
func TestOneHostIsFetchedPolitely(t *testing.T) {
	var inFlight, most atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := inFlight.Add(1)
		defer inFlight.Add(-1)
		for m := most.Load(); n > m && !most.CompareAndSwap(m, n); m = most.Load() {
		}
		fmt.Fprint(w, r.URL.Path)
	}))
	defer srv.Close()
	var mu sync.Mutex
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var waits []time.Duration
	tl := NewExtract(ExtractOptions{Client: open.Client(netguard.ClientOptions{}), MinInterval: 2 * time.Second,
		Now: func() time.Time { mu.Lock(); defer mu.Unlock(); return now },
		Sleep: func(ctx context.Context, d time.Duration) error {
			mu.Lock()
			defer mu.Unlock()
			waits = append(waits, d)
			now = now.Add(d)
			return nil
		}})
	res := extract(t, tl, srv.URL+"/a", srv.URL+"/b", srv.URL+"/c")
	if res.IsError || most.Load() != 1 {
		t.Fatalf("%d requests at once:\n%s", most.Load(), res.Content)
	}
	if len(waits) != 2 || waits[0] != 2*time.Second || waits[1] != 2*time.Second {
		t.Fatalf("waits %v", waits)
	}
}

func TestAtMostMaxURLsAreFetched(t *testing.T) {
	srv := site(t)
	res := extract(t, newExtract(ExtractOptions{MaxURLs: 2}), srv.URL+"/notes.txt", srv.URL+"/data.json", srv.URL+"/article", srv.URL+"/notes.txt")
	if !strings.Contains(res.Content, "[1 more URL(s) not fetched: at most 2 per call]") || strings.Contains(res.Content, "Fixing") {
		t.Fatal(res.Content)
	}
}

// With the guard on (no web.allow_private), the loopback test server is
// refused; a trusted page redirecting into the private network is refused
// at the hop, and the private server never sees a request.
func TestPrivateAddressesAreRefusedWithoutAllowPrivate(t *testing.T) {
	var insideHits atomic.Int32
	inside := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		insideHits.Add(1)
		fmt.Fprint(w, "router admin")
	}))
	defer inside.Close()
	outside := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/to-private":
			http.Redirect(w, r, inside.URL+"/admin", http.StatusFound)
		case "/to-metadata":
			http.Redirect(w, r, "http://169.254.169.254/latest/meta-data/iam/", http.StatusFound)
		default:
			fmt.Fprint(w, "public page")
		}
	}))
	defer outside.Close()
	u, _ := url.Parse(outside.URL)
	guard := &netguard.Guard{AllowAddrs: []netip.AddrPort{netip.MustParseAddrPort(u.Host)}} // stands in for a public host
	tl := newExtract(ExtractOptions{Client: guard.Client(netguard.ClientOptions{})})
	res := extract(t, tl, outside.URL+"/", outside.URL+"/to-private", outside.URL+"/to-metadata", inside.URL+"/")
	sections := strings.Split(res.Content, "\n\n# ")
	want := []string{"public page", "loopback address", "cloud metadata address", "refusing to connect to 127.0.0.1 (loopback address); set web.allow_private: true"}
	for i, w := range want {
		if !strings.Contains(sections[i], w) {
			t.Errorf("section %d lacks %q:\n%s", i, w, sections[i])
		}
	}
	if insideHits.Load() != 0 {
		t.Fatal("the private server was reached")
	}
}
