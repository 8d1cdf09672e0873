package provider

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
)

// modelServer is a local OpenAI-compatible server that lists models and
// counts the requests it gets.
type modelServer struct {
	*httptest.Server
	hits atomic.Int32
}

func newModelServer(t *testing.T, models ...string) *modelServer {
	t.Helper()
	return newServer(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/models" {
			http.NotFound(w, r)
			return
		}
		data := []map[string]string{}
		for _, m := range models {
			data = append(data, map[string]string{"id": m, "object": "model"})
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"object": "list", "data": data})
	})
}

func newServer(t *testing.T, h http.HandlerFunc) *modelServer {
	t.Helper()
	s := &modelServer{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.hits.Add(1)
		h(w, r)
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *modelServer) local(name, provider string) LocalServer {
	return LocalServer{Name: name, Provider: provider, BaseURL: s.URL + "/v1"}
}

// closedPort is a local address nothing listens on any more.
func closedPort(t *testing.T) LocalServer {
	s := httptest.NewServer(http.NotFoundHandler())
	s.Close()
	return LocalServer{Name: "Gone", Provider: "vllm", BaseURL: s.URL + "/v1"}
}

func TestAutoWithoutAKeyUsesTheFirstLocalServerThatAnswers(t *testing.T) {
	notOpenAI := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		_, _ = w.Write([]byte("<html>another app</html>"))
	})
	ollama := newModelServer(t, "llama3.1:latest", "qwen3:8b")
	later := newModelServer(t, "other")
	r := Resolver{Getenv: envOf(nil), LocalServers: []LocalServer{
		closedPort(t), notOpenAI.local("llama.cpp", "llamacpp"), ollama.local("Ollama", "ollama"), later.local("LM Studio", "lmstudio"),
	}}

	cfg, found, err := r.Discover(context.Background(), Config{Provider: "auto"})
	if err != nil {
		t.Fatal(err)
	}
	want := ollama.URL + "/v1"
	if found == nil || found.Server.Name != "Ollama" || found.Model != "llama3.1:latest" || len(found.Models) != 2 {
		t.Fatalf("found %+v", found)
	}
	if cfg.Provider != "ollama" || cfg.BaseURL != want || cfg.Model != "llama3.1:latest" {
		t.Fatalf("config %+v", cfg)
	}
	if note := found.String(); note != "using Ollama at "+want+", model llama3.1:latest (no API key set)" {
		t.Errorf("note %q", note)
	}
	// What Discover found resolves without the network, as a local endpoint.
	ep, err := r.Resolve(context.Background(), cfg)
	if err != nil || ep.Provider != "ollama" || ep.BaseURL != want || ep.Model != "llama3.1:latest" || ep.APIKey != "" || !isLocal(ep) {
		t.Fatalf("resolved %+v, %v", ep, err)
	}
}

// The list order is the preference, whichever server answers first.
func TestAnEarlierServerInTheListWinsOverAFasterOne(t *testing.T) {
	fastAnswered := make(chan struct{})
	fast := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		defer close(fastAnswered)
		_, _ = w.Write([]byte(`{"data":[{"id":"fast-model"}]}`))
	})
	slow := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-fastAnswered:
		case <-r.Context().Done():
			return
		}
		_, _ = w.Write([]byte(`{"data":[{"id":"slow-model"}]}`))
	})
	r := Resolver{Getenv: envOf(nil), LocalServers: []LocalServer{slow.local("Ollama", "ollama"), fast.local("vLLM", "vllm")}}
	_, found, err := r.Discover(context.Background(), Config{})
	if err != nil || found == nil || found.Server.Name != "Ollama" || found.Model != "slow-model" {
		t.Fatalf("found %+v, %v", found, err)
	}
}

func TestTheConfiguredModelMustBeOneTheLocalServerOffers(t *testing.T) {
	ollama := newModelServer(t, "llama3.1:latest", "qwen3:8b")
	r := Resolver{Getenv: envOf(nil), LocalServers: []LocalServer{ollama.local("Ollama", "ollama")}}

	cfg, found, err := r.Discover(context.Background(), Config{Model: "qwen3:8b"})
	if err != nil || found.Model != "qwen3:8b" || cfg.Model != "qwen3:8b" {
		t.Fatalf("offered model: %+v %+v %v", cfg, found, err)
	}
	// Ollama serves "llama3.1:latest" as "llama3.1"; the name stays as given.
	cfg, _, err = r.Discover(context.Background(), Config{Model: "llama3.1"})
	if err != nil || cfg.Model != "llama3.1" {
		t.Fatalf("untagged name: %+v %v", cfg, err)
	}

	cfg, found, err = r.Discover(context.Background(), Config{Model: "anthropic/claude-sonnet-4.5"})
	if err == nil || found != nil || cfg.BaseURL != "" {
		t.Fatalf("a model the server lacks was accepted: %+v %+v", cfg, found)
	}
	for _, w := range []string{"Ollama at " + ollama.URL + "/v1", `"anthropic/claude-sonnet-4.5"`, "llama3.1:latest, qwen3:8b", "--model", "ollama pull anthropic/claude-sonnet-4.5"} {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("error %q lacks %q", err, w)
		}
	}
}

func TestALocalServerWithNoModelSaysHowToGetOne(t *testing.T) {
	ollama := newModelServer(t)
	r := Resolver{Getenv: envOf(nil), LocalServers: []LocalServer{ollama.local("Ollama", "ollama")}}
	_, _, err := r.Discover(context.Background(), Config{})
	if err == nil || !strings.Contains(err.Error(), "offers no model") || !strings.Contains(err.Error(), "ollama pull llama3.1") {
		t.Fatalf("err %v", err)
	}
}

func TestNoLocalServerLeavesTheNoProviderError(t *testing.T) {
	r := Resolver{Getenv: envOf(nil), LocalServers: []LocalServer{closedPort(t)}}
	cfg, found, err := r.Discover(context.Background(), Config{})
	if err != nil || found != nil {
		t.Fatalf("found %+v, %v", found, err)
	}
	_, err = r.Resolve(context.Background(), cfg)
	if !errors.Is(err, ErrNoProvider) {
		t.Fatalf("err %v", err)
	}
	for _, w := range []string{"OPENROUTER_API_KEY", "OPENAI_API_KEY", "ANTHROPIC_API_KEY", "ollama serve", "ollama pull llama3.1", "--provider custom --base-url"} {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("error %q lacks %q", err, w)
		}
	}
}

// Probing is for when nothing else says where to go.
func TestLocalServersAreNotProbedWhenSomethingElseIsConfigured(t *testing.T) {
	tests := []struct {
		name string
		cfg  Config
		env  map[string]string
	}{
		{"a key in the environment", Config{}, map[string]string{"ANTHROPIC_API_KEY": "sk-ant-1"}},
		{"a key command", Config{Providers: map[string]ProviderConfig{"openai": {KeyCmd: "echo k"}}}, nil},
		{"an api key", Config{APIKey: "sk-1"}, nil},
		{"a base url", Config{BaseURL: "https://gateway.example.com/v1", Model: "m"}, nil},
		{"a named provider", Config{Provider: "openrouter"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := newModelServer(t, "m")
			r := Resolver{Getenv: envOf(tt.env), LocalServers: []LocalServer{srv.local("Ollama", "ollama")}}
			cfg, found, err := r.Discover(context.Background(), tt.cfg)
			if err != nil || found != nil || srv.hits.Load() != 0 || cfg.Provider != tt.cfg.Provider || cfg.BaseURL != tt.cfg.BaseURL {
				t.Fatalf("found %+v, cfg %+v, %d probes, %v", found, cfg, srv.hits.Load(), err)
			}
		})
	}
}

func TestALocalProviderWithoutAModelTakesTheServersFirst(t *testing.T) {
	srv := newModelServer(t, "qwen3-coder", "gemma3")
	bare := newServer(t, http.NotFound)
	tests := []struct {
		name string
		cfg  Config
		want string
	}{
		{"custom", Config{Provider: "custom", BaseURL: srv.URL + "/v1"}, "qwen3-coder"},
		{"auto with a local base url", Config{BaseURL: srv.URL + "/v1/"}, "qwen3-coder"},
		{"ollama at a configured url", Config{Provider: "ollama", Providers: map[string]ProviderConfig{"ollama": {BaseURL: srv.URL + "/v1"}}}, "qwen3-coder"},
		{"a server that does not list models", Config{Provider: "llamacpp", BaseURL: bare.URL + "/v1"}, "default"},
		{"a model is kept", Config{Provider: "custom", BaseURL: srv.URL + "/v1", Model: "gemma3"}, "gemma3"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, found, err := Resolver{Getenv: envOf(nil)}.Discover(context.Background(), tt.cfg)
			if err != nil || found != nil || cfg.Model != tt.want {
				t.Fatalf("model %q (found %+v, %v), want %q", cfg.Model, found, err, tt.want)
			}
		})
	}
}

func TestHermesLocalPortsNamesThePortsToProbe(t *testing.T) {
	srv := newModelServer(t, "m1")
	port := srv.URL[strings.LastIndexByte(srv.URL, ':')+1:]
	r := Resolver{Getenv: envOf(map[string]string{LocalPortsEnv: " " + port + " "})}
	cfg, found, err := r.Discover(context.Background(), Config{})
	if err != nil || found == nil || found.Server.Name != "a local server" || cfg.Provider != "custom" || cfg.BaseURL != "http://127.0.0.1:"+port+"/v1" || cfg.Model != "m1" {
		t.Fatalf("found %+v, cfg %+v, %v", found, cfg, err)
	}

	got, err := Resolver{Getenv: envOf(map[string]string{LocalPortsEnv: "11434,8081"})}.localServers()
	if err != nil || len(got) != 2 || got[0].Name != "Ollama" || got[0].Provider != "ollama" || got[1].Provider != "custom" || got[1].BaseURL != "http://127.0.0.1:8081/v1" {
		t.Fatalf("servers %+v, %v", got, err)
	}
	if got, err := (Resolver{Getenv: envOf(map[string]string{LocalPortsEnv: "none"})}).localServers(); err != nil || len(got) != 0 {
		t.Fatalf("none: %+v, %v", got, err)
	}
	if _, _, err := (Resolver{Getenv: envOf(map[string]string{LocalPortsEnv: "11434,ollama"})}).Discover(context.Background(), Config{}); err == nil || !strings.Contains(err.Error(), `"ollama" is not a port`) {
		t.Fatalf("bad list: %v", err)
	}
	if got, _ := (Resolver{Getenv: envOf(nil)}).localServers(); len(got) != 4 || got[0].BaseURL != "http://127.0.0.1:11434/v1" {
		t.Fatalf("defaults %+v", got)
	}
}
