// Package cassette loads the recorded provider interactions in
// ../shared/fixtures/provider-cassettes (go-vcr v2 YAML) and serves them
// through an http.RoundTripper, so transports can be tested against real
// provider output without a network.
package cassette

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/goccy/go-yaml"
)

// Interaction is one recorded request and its response.
type Interaction struct {
	Request struct {
		Body    string              `yaml:"body"`
		Headers map[string][]string `yaml:"headers"`
		URL     string              `yaml:"url"`
		Method  string              `yaml:"method"`
	} `yaml:"request"`
	Response struct {
		Body    string              `yaml:"body"`
		Headers map[string][]string `yaml:"headers"`
		Status  string              `yaml:"status"`
		Code    int                 `yaml:"code"`
	} `yaml:"response"`
}

// Cassette is a recorded file.
type Cassette struct {
	Path         string
	Interactions []Interaction `yaml:"interactions"`
}

// Load reads a cassette file.
func Load(path string) (*Cassette, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("cassette: %w", err)
	}
	c := &Cassette{Path: path}
	if err := yaml.Unmarshal(b, c); err != nil {
		return nil, fmt.Errorf("cassette %s: %w", path, err)
	}
	return c, nil
}

// Dir returns the fixtures directory (../shared/fixtures/provider-cassettes
// from the module root), found from this source file's location.
func Dir() string {
	_, file, _, _ := runtime.Caller(0)
	root := filepath.Join(filepath.Dir(file), "..", "..")
	return filepath.Join(root, "..", "shared", "fixtures", "provider-cassettes")
}

// Glob returns the cassette files under Dir matching pattern (relative).
func Glob(pattern string) ([]string, error) {
	return filepath.Glob(filepath.Join(Dir(), pattern))
}

// Transport replays a cassette's interactions in order, one per request,
// and records the request bodies it was sent.
type Transport struct {
	C *Cassette

	mu       sync.Mutex
	next     int
	Requests [][]byte
}

// RoundTrip serves the next recorded response.
func (t *Transport) RoundTrip(req *http.Request) (*http.Response, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if req.Body != nil {
		b, _ := io.ReadAll(req.Body)
		req.Body.Close()
		t.Requests = append(t.Requests, b)
	}
	if t.next >= len(t.C.Interactions) {
		return nil, fmt.Errorf("cassette %s: no interaction left for request %d", t.C.Path, t.next+1)
	}
	in := t.C.Interactions[t.next]
	t.next++
	h := http.Header{}
	for k, vs := range in.Response.Headers {
		for _, v := range vs {
			h.Add(k, v)
		}
	}
	h.Del("Content-Length")
	h.Del("Content-Encoding")
	code := in.Response.Code
	if code == 0 {
		code = 200
	}
	return &http.Response{
		Status:        in.Response.Status,
		StatusCode:    code,
		Header:        h,
		Body:          io.NopCloser(strings.NewReader(in.Response.Body)),
		ContentLength: -1,
		Request:       req,
		Proto:         "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
	}, nil
}

// Streaming reports whether the interaction's response is an SSE stream.
func (in Interaction) Streaming() bool {
	for k, vs := range in.Response.Headers {
		if strings.EqualFold(k, "content-type") {
			for _, v := range vs {
				if strings.Contains(v, "event-stream") {
					return true
				}
			}
		}
	}
	return bytes.HasPrefix([]byte(strings.TrimSpace(in.Response.Body)), []byte("data:")) ||
		bytes.HasPrefix([]byte(strings.TrimSpace(in.Response.Body)), []byte("event:"))
}

// Each runs fn as a subtest for every cassette of the given suites
// (folders under Dir), named by its path under Dir, and returns how many
// it ran. A suite with no cassette fails the test: a missing fixture must
// not pass as an empty replay.
func Each(t *testing.T, suites []string, fn func(t *testing.T, path string)) int {
	t.Helper()
	n := 0
	for _, suite := range suites {
		files, err := Glob(filepath.Join(suite, "*", "*.yaml"))
		if err != nil || len(files) == 0 {
			t.Fatalf("%s: no cassettes found (err %v)", suite, err)
		}
		for _, f := range files {
			n++
			rel, _ := filepath.Rel(Dir(), f)
			t.Run(rel, func(t *testing.T) { fn(t, f) })
		}
	}
	return n
}
