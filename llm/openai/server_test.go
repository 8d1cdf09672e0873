package openai

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/hermes-go/hermes/llm"
)

// fakeProvider is a real HTTP server on 127.0.0.1 that answers every
// request with handler and records what it was sent.
type fakeProvider struct {
	*httptest.Server
	mu      sync.Mutex
	bodies  []string
	headers []http.Header
	paths   []string
}

func newFakeProvider(t *testing.T, handler http.HandlerFunc) *fakeProvider {
	t.Helper()
	f := &fakeProvider{}
	f.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		f.mu.Lock()
		f.bodies = append(f.bodies, string(b))
		f.headers = append(f.headers, r.Header.Clone())
		f.paths = append(f.paths, r.Method+" "+r.URL.Path)
		f.mu.Unlock()
		handler(w, r)
	}))
	t.Cleanup(f.Close)
	return f
}

func (f *fakeProvider) lastBody() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.bodies[len(f.bodies)-1]
}

func (f *fakeProvider) lastHeader() http.Header {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.headers[len(f.headers)-1]
}

// serveSSE answers with the given SSE text.
func serveSSE(body string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, body)
	}
}

// serveJSON answers with a JSON body.
func serveJSON(body string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, body)
	}
}

// sse frames each data payload as an event and ends the stream with [DONE].
func sse(data ...string) string {
	var b strings.Builder
	for _, d := range data {
		b.WriteString("data: " + d + "\n\n")
	}
	b.WriteString("data: [DONE]\n\n")
	return b.String()
}

func chatClient(f *fakeProvider, o llm.Options) *Chat {
	o.BaseURL = f.URL + "/v1"
	if o.APIKey == "" {
		o.APIKey = "sk-test"
	}
	return NewChat(o)
}

func simpleRequest() *llm.Request {
	return &llm.Request{Model: "test-model", Messages: []llm.Message{llm.System("be brief"), llm.User("hi")}}
}

// collect runs one call and gathers the deltas the sink saw.
type collected struct {
	text, reasoning strings.Builder
	tools           []llm.Delta
	all             []llm.Delta
}

func complete(t *testing.T, c llm.Client, req *llm.Request) (*llm.Response, *collected, error) {
	t.Helper()
	col := &collected{}
	resp, err := c.Complete(context.Background(), req, func(d llm.Delta) {
		col.all = append(col.all, d)
		switch d.Kind {
		case llm.DeltaText:
			col.text.WriteString(d.Text)
		case llm.DeltaReasoning:
			col.reasoning.WriteString(d.Text)
		case llm.DeltaToolCall:
			col.tools = append(col.tools, d)
		}
	})
	return resp, col, err
}
