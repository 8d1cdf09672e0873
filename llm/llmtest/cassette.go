package llmtest

import (
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"

	"go.yaml.in/yaml/v4"
)

// Cassette is a recorded conversation with a real provider: a go-vcr v2
// YAML file of request and response pairs, in the order they happened.
type Cassette struct {
	// Path is the file the cassette was loaded from.
	Path         string
	Interactions []Interaction `yaml:"interactions"`
}

// Interaction is one recorded request and the provider's response.
type Interaction struct {
	Request  RecordedRequest  `yaml:"request"`
	Response RecordedResponse `yaml:"response"`
}

// RecordedRequest is what the recording client sent. Auth headers were
// stripped when it was recorded.
type RecordedRequest struct {
	Method  string              `yaml:"method"`
	URL     string              `yaml:"url"`
	Headers map[string][]string `yaml:"headers"`
	Body    string              `yaml:"body"`
}

// RecordedResponse is what the provider answered. A streamed body is the
// SSE text exactly as it was sent.
type RecordedResponse struct {
	Code    int                 `yaml:"code"`
	Status  string              `yaml:"status"`
	Headers map[string][]string `yaml:"headers"`
	Body    string              `yaml:"body"`
}

// Streaming reports whether the response is an SSE stream.
func (in Interaction) Streaming() bool {
	for k, vs := range in.Response.Headers {
		if strings.EqualFold(k, "Content-Type") && slices.ContainsFunc(vs, func(v string) bool { return strings.Contains(v, "event-stream") }) {
			return true
		}
	}
	body := strings.TrimSpace(in.Response.Body)
	return strings.HasPrefix(body, "data:") || strings.HasPrefix(body, "event:")
}

// LoadCassette reads a cassette file.
func LoadCassette(path string) (*Cassette, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("llmtest: cassette: %w", err)
	}
	c := &Cassette{Path: path}
	if err := yaml.Unmarshal(b, c); err != nil {
		return nil, fmt.Errorf("llmtest: cassette %s: %w", path, err)
	}
	return c, nil
}

// CassetteDir is the directory of the recordings that ship with the
// module, testdata/provider-cassettes at its root, found from this source
// file's location (so it is not found in a binary built with -trimpath).
// Folders are Test<Suite>/<provider-model>/<scenario>.yaml; its README
// says what each suite holds.
func CassetteDir() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..", "testdata", "provider-cassettes")
}

// CassetteFiles returns the cassette files under CassetteDir matching
// pattern, a filepath.Match pattern relative to it ("TestOpenAICommon/*/*.yaml").
func CassetteFiles(pattern string) ([]string, error) {
	return filepath.Glob(filepath.Join(CassetteDir(), pattern))
}

// EachCassette runs fn as a subtest for every cassette of the given suites
// (folders under CassetteDir), each named by its path below CassetteDir,
// and returns how many it ran. A suite without cassettes fails the test:
// a missing recording must not pass as an empty replay.
func EachCassette(t *testing.T, suites []string, fn func(t *testing.T, path string)) int {
	t.Helper()
	n := 0
	for _, suite := range suites {
		files, err := CassetteFiles(filepath.Join(suite, "*", "*.yaml"))
		if err != nil || len(files) == 0 {
			t.Fatalf("llmtest: suite %s: no cassettes under %s (err %v)", suite, CassetteDir(), err)
		}
		for _, f := range files {
			n++
			rel, _ := filepath.Rel(CassetteDir(), f)
			t.Run(rel, func(t *testing.T) { fn(t, f) })
		}
	}
	return n
}

// Transport returns an http.RoundTripper that replays c: each request
// gets the next recorded response, in order.
func (c *Cassette) Transport() *Replayer { return &Replayer{c: c} }

// Replayer serves a cassette's responses and keeps the request bodies it
// was sent. A request whose method or URL differs from the recorded one,
// or one beyond the recording, fails with an error naming both. It is
// safe for concurrent use; requests take responses in arrival order.
type Replayer struct {
	c *Cassette

	mu     sync.Mutex
	bodies [][]byte
}

// RequestBodies returns the bodies of the requests received so far, in
// arrival order; body i was answered by interaction i.
func (r *Replayer) RequestBodies() [][]byte {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.bodies)
}

// RoundTrip serves the next recorded response.
func (r *Replayer) RoundTrip(req *http.Request) (*http.Response, error) {
	var body []byte
	if req.Body != nil {
		b, err := io.ReadAll(req.Body)
		req.Body.Close()
		if err != nil {
			return nil, fmt.Errorf("llmtest: cassette %s: reading request body: %w", r.c.Path, err)
		}
		body = b
	}
	r.mu.Lock()
	i := len(r.bodies)
	r.bodies = append(r.bodies, body)
	r.mu.Unlock()

	if i >= len(r.c.Interactions) {
		return nil, fmt.Errorf("llmtest: cassette %s: request %d (%s %s) has no recorded interaction; the recording has %d",
			r.c.Path, i, req.Method, req.URL, len(r.c.Interactions))
	}
	in := r.c.Interactions[i]
	if req.Method != in.Request.Method || req.URL.String() != in.Request.URL {
		return nil, fmt.Errorf("llmtest: cassette %s: request %d is %s %s, the recording has %s %s",
			r.c.Path, i, req.Method, req.URL, in.Request.Method, in.Request.URL)
	}
	h := http.Header{}
	for k, vs := range in.Response.Headers {
		for _, v := range vs {
			h.Add(k, v)
		}
	}
	// The body is stored decoded and at its own length.
	h.Del("Content-Length")
	h.Del("Content-Encoding")
	code := in.Response.Code
	if code == 0 {
		code = http.StatusOK
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
