package e2e

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"testing"

	"github.com/hermes-go/hermes/llm/llmtest"
)

// localServer stands for Ollama and its peers: it lists models at
// /v1/models and passes the model calls on to the scripted server.
type localServer struct {
	url  string // base URL, ending in /v1
	port string
}

func newLocalServer(t *testing.T, srv *llmtest.Server, models ...string) localServer {
	t.Helper()
	target, err := url.Parse(srv.AnthropicURL()) // the server's root
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /v1/models", func(w http.ResponseWriter, r *http.Request) {
		data := []map[string]string{}
		for _, m := range models {
			data = append(data, map[string]string{"id": m, "object": "model", "owned_by": "library"})
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"object": "list", "data": data})
	})
	mux.Handle("/", httputil.NewSingleHostReverseProxy(target))
	hs := httptest.NewServer(mux)
	t.Cleanup(hs.Close)
	return localServer{url: hs.URL + "/v1", port: portOf(t, hs.URL)}
}

func portOf(t *testing.T, raw string) string {
	t.Helper()
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	return u.Port()
}

// A newcomer with no key and no flags, and a local server running: hermes
// finds the server on its port, says which one and which model, and runs.
func TestWithoutAKeyHermesFindsALocalServerAndUsesIt(t *testing.T) {
	srv := llmtest.NewServer(t)
	srv.Enqueue(llmtest.Reply{Text: "hello from the local model"})
	local := newLocalServer(t, srv, "local-model", "other-model")
	home := t.TempDir()
	r := hermesEnv(t, []string{"HERMES_LOCAL_PORTS=" + local.port}, home, home, "-z", "hi")
	if r.code != 0 || strings.TrimSpace(r.stdout) != "hello from the local model" {
		t.Fatalf("exit %d stdout %q stderr %q", r.code, r.stdout, r.stderr)
	}
	if note := "hermes: using a local server at " + local.url + ", model local-model (no API key set)"; !strings.Contains(r.stderr, note) {
		t.Errorf("stderr %q lacks %q", r.stderr, note)
	}
	reqs := srv.Requests()
	if len(reqs) != 1 || reqs[0].Model != "local-model" || reqs[0].APIKey() != "" {
		t.Fatalf("the local server got %d calls: %+v", len(reqs), reqs)
	}
}

// A configured model the local server does not have is an error that
// lists what it has, not a silent switch to another model.
func TestAModelTheLocalServerLacksIsAnErrorListingItsModels(t *testing.T) {
	srv := llmtest.NewServer(t)
	local := newLocalServer(t, srv, "local-model", "other-model")
	home := t.TempDir()
	r := hermesEnv(t, []string{"HERMES_LOCAL_PORTS=" + local.port, "HERMES_MODEL=gpt-5"}, home, home, "-z", "hi")
	if r.code != 2 || r.stdout != "" || !contains(r.stderr, `does not offer model "gpt-5"`, "local-model, other-model", "--model") {
		t.Fatalf("exit %d stdout %q stderr %q", r.code, r.stdout, r.stderr)
	}
	if n := len(srv.Requests()); n != 0 {
		t.Fatalf("%d model calls", n)
	}
}
