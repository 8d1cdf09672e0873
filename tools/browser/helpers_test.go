package browser

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hermes-go/hermes/internal/netguard"
	"github.com/hermes-go/hermes/internal/testpeer"
	"github.com/hermes-go/hermes/tool"
)

// newTestBrowser is a browser over the system's Chromium, with a
// workspace and a temporary directory of its own, closed with the test.
func newTestBrowser(t testing.TB, o Options) *Browser {
	t.Helper()
	if o.Found.Path == "" && o.Found.CDPURL == "" {
		o.Found = Found{Path: chromium(t), Source: "test"}
	}
	if o.Guard == nil {
		o.Guard = allowAll
	}
	if o.Workdir == "" {
		o.Workdir = t.TempDir()
	}
	if o.TempDir == "" {
		o.TempDir = t.TempDir()
	}
	b := New(o)
	t.Cleanup(func() {
		if err := b.Close(); err != nil {
			t.Errorf("close: %v", err)
		}
	})
	return b
}

// allowAll lets pages reach the test's servers on 127.0.0.1
// (web.allow_private on).
var allowAll = &netguard.Guard{AllowPrivate: true}

func chromium(t testing.TB) string { return testpeer.Chromium(t) }

// call runs one browser tool the way the executor would.
func call(t testing.TB, b *Browser, name string, args any) tool.Result {
	t.Helper()
	raw, err := json.Marshal(args)
	if err != nil {
		t.Fatal(err)
	}
	for _, tl := range b.Tools() {
		if tl.Spec().Name == name {
			res, err := tl.Run(context.Background(), tool.Call{Name: name, Args: raw})
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			return res
		}
	}
	t.Fatalf("no tool %s", name)
	return tool.Result{}
}

// mustOK fails unless the result succeeded; it returns its text.
func mustOK(t testing.TB, res tool.Result) string {
	t.Helper()
	if res.IsError {
		t.Fatalf("unexpected failure:\n%s", res.Content)
	}
	return res.Content
}

func mustContain(t testing.TB, text string, want ...string) {
	t.Helper()
	for _, w := range want {
		if !strings.Contains(text, w) {
			t.Fatalf("missing %q in:\n%s", w, text)
		}
	}
}

// site serves pages from a map of path to HTML on 127.0.0.1.
func site(t testing.TB, pages map[string]string, extra ...func(mux *http.ServeMux)) *httptest.Server {
	t.Helper()
	mux := http.NewServeMux()
	for path, html := range pages {
		mux.HandleFunc(path, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			_, _ = w.Write([]byte(html))
		})
	}
	for _, f := range extra {
		f(mux)
	}
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

// profileGone reports whether the profile directory was deleted.
func profileGone(dir string) bool {
	_, err := os.Stat(dir)
	return os.IsNotExist(err)
}

// processesUsing lists the processes whose command line names dir.
func processesUsing(dir string) []string {
	var out []string
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil {
			continue
		}
		if strings.Contains(string(b), dir) {
			out = append(out, e.Name()+": "+strings.ReplaceAll(string(b), "\x00", " "))
		}
	}
	return out
}
