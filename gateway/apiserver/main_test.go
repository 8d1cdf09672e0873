package apiserver_test

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"

	"github.com/hermes-go/hermes/app"
	"github.com/hermes-go/hermes/config"
	"github.com/hermes-go/hermes/gateway/apiserver"
	"github.com/hermes-go/hermes/llm/llmtest"
	"github.com/hermes-go/hermes/sandbox"
)

// The test binary is its own sandbox helper, as hermes is.
func TestMain(m *testing.M) {
	sandbox.MaybeRunHelper()
	os.Exit(m.Run())
}

const key = "sk-hermes-test-key"

// fixture is an API server over a runtime whose model is llm.
type fixture struct {
	llm     *llmtest.Server
	rt      *app.Runtime
	url     string
	workdir string
	srv     *apiserver.Server
}

func newFixture(t *testing.T, o apiserver.Options, tweak ...func(*config.Config)) *fixture {
	t.Helper()
	srv := llmtest.NewServer(t)
	cfg := config.Default()
	for _, f := range tweak {
		f(cfg)
	}
	cfg.Home = t.TempDir()
	cfg.Provider, cfg.BaseURL, cfg.APIKey, cfg.Model.Name = "custom", srv.URL(), "sk-model", "test-model"
	workdir := t.TempDir()
	rt, err := app.New(context.Background(), cfg, app.Options{Source: "api_server", Platform: "api", Workdir: workdir,
		Getenv: func(string) string { return "" }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rt.Close() })
	o.Runtime, o.Key = rt, key
	o.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	s, err := apiserver.New(o)
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(s.Handler())
	t.Cleanup(hs.Close)
	return &fixture{llm: srv, rt: rt, url: hs.URL, workdir: workdir, srv: s}
}

// do sends a request with the key and returns the response, its body
// read.
func (f *fixture) do(t *testing.T, method, path string, body any, header ...string) (*http.Response, []byte) {
	t.Helper()
	return f.doCtx(t, context.Background(), method, path, body, header...)
}

func (f *fixture) doCtx(t *testing.T, ctx context.Context, method, path string, body any, header ...string) (*http.Response, []byte) {
	t.Helper()
	var rd io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = strings.NewReader(string(b))
	}
	req, _ := http.NewRequestWithContext(ctx, method, f.url+path, rd)
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("Content-Type", "application/json")
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return nil, nil
		}
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, b
}

func decodeJSON(t *testing.T, b []byte) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, b)
	}
	return m
}

// sseEvent is one event of a stream.
type sseEvent struct {
	name, data string
}

func readSSE(t *testing.T, body []byte) []sseEvent {
	t.Helper()
	var out []sseEvent
	var cur sseEvent
	sc := bufio.NewScanner(strings.NewReader(string(body)))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case line == "":
			if cur.data != "" {
				out = append(out, cur)
			}
			cur = sseEvent{}
		case strings.HasPrefix(line, "event: "):
			cur.name = strings.TrimPrefix(line, "event: ")
		case strings.HasPrefix(line, "data: "):
			cur.data = strings.TrimPrefix(line, "data: ")
		}
	}
	return out
}

// errorOf reads an OpenAI error body.
func errorOf(t *testing.T, b []byte) (typ, code, msg string) {
	t.Helper()
	var e struct {
		Error struct {
			Message string  `json:"message"`
			Type    string  `json:"type"`
			Code    *string `json:"code"`
		} `json:"error"`
	}
	if err := json.Unmarshal(b, &e); err != nil || e.Error.Message == "" {
		t.Fatalf("not an OpenAI error body: %s", b)
	}
	c := ""
	if e.Error.Code != nil {
		c = *e.Error.Code
	}
	return e.Error.Type, c, e.Error.Message
}
