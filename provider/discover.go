package provider

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
)

// LocalServer is an OpenAI-compatible server on this machine that
// provider "auto" looks for when no key is set.
type LocalServer struct {
	Name     string // for people: "Ollama"
	Provider string // the provider it resolves to: "ollama"
	BaseURL  string // "http://127.0.0.1:11434/v1"
}

// DefaultLocalServers are the servers provider "auto" probes, on their
// usual ports, in order of preference.
func DefaultLocalServers() []LocalServer {
	return []LocalServer{
		{Name: "Ollama", Provider: "ollama", BaseURL: "http://127.0.0.1:11434/v1"},
		{Name: "LM Studio", Provider: "lmstudio", BaseURL: "http://127.0.0.1:1234/v1"},
		{Name: "llama.cpp", Provider: "llamacpp", BaseURL: "http://127.0.0.1:8080/v1"},
		{Name: "vLLM", Provider: "vllm", BaseURL: "http://127.0.0.1:8000/v1"},
	}
}

// LocalPortsEnv names the variable that replaces the probed ports: a
// comma-separated list of ports on 127.0.0.1 ("11434,8081"), or "none" to
// probe nothing. A usual port keeps its server's name; another is "a local
// server" of provider custom.
const LocalPortsEnv = "HERMES_LOCAL_PORTS"

// Probing must not hold up a start-up: loopback answers in a millisecond,
// and a refused port at once.
const (
	probeTimeout = 500 * time.Millisecond
	// modelsTimeout bounds asking a named server (it may be remote) for
	// its models.
	modelsTimeout = 3 * time.Second
)

// Found is the local server Discover picked for provider "auto".
type Found struct {
	Server LocalServer
	Model  string
	Models []string // what the server offers, in its order
}

// String is the note a surface shows: which server and model, and why.
func (f *Found) String() string {
	return fmt.Sprintf("using %s at %s, model %s (no API key set)", f.Server.Name, f.Server.BaseURL, f.Model)
}

// Discover fills in what resolution cannot know without asking a server,
// and returns cfg with it; Resolve and Chain then need no network.
//
//   - Provider "auto" (or none) with no base URL and no credentials for any
//     provider: the LocalServers are probed in parallel (GET /v1/models,
//     a short timeout) and the first in the list that answers with a model
//     becomes the provider, base URL and model of cfg, reported in Found.
//     The configured model must be one the server offers: if not, the
//     error names the models it offers. With no model configured, the
//     server's first is taken. When no server answers, cfg is returned
//     as it is, and Resolve reports ErrNoProvider.
//   - A local provider (custom, ollama, vllm, llamacpp, lmstudio) with no
//     model: the server's first model, or "default" when it does not say
//     (llama.cpp serves whatever it loaded under any name).
//
// Call it once, before Chain and Auxiliary, so that every resolution of
// the run sees the same endpoint.
func (r Resolver) Discover(ctx context.Context, cfg Config) (Config, *Found, error) {
	id := normalizeID(cfg.Provider)
	if id == "" || id == "auto" {
		sel := selection{Provider: cfg.Provider, BaseURL: cfg.BaseURL, APIKey: cfg.APIKey}
		if _, err := r.detect(sel, cfg.Providers); errors.Is(err, ErrNoProvider) {
			return r.findLocal(ctx, cfg)
		}
		if strings.TrimSpace(cfg.BaseURL) == "" {
			return cfg, nil, nil
		}
		id = providerForURL(cfg.BaseURL)
	}
	spec, _ := Lookup(id)
	if strings.TrimSpace(cfg.Model) != "" || !(spec.Local || id == "custom") {
		return cfg, nil, nil
	}
	base := firstNonEmpty(cfg.BaseURL, cfg.Providers[id].BaseURL, spec.BaseURL)
	if base == "" {
		return cfg, nil, nil // Resolve says a base URL is needed
	}
	ctx, cancel := context.WithTimeout(ctx, modelsTimeout)
	defer cancel()
	cfg.Model = "default"
	if models, err := ListModels(ctx, base, cfg.APIKey); err == nil && len(models) > 0 {
		cfg.Model = models[0]
	}
	return cfg, nil, nil
}

// findLocal probes the local servers and points cfg at the first that
// answers with a model.
func (r Resolver) findLocal(ctx context.Context, cfg Config) (Config, *Found, error) {
	servers, err := r.localServers()
	if err != nil || len(servers) == 0 {
		return cfg, nil, err
	}
	s, models, empty := probe(ctx, servers)
	if models == nil {
		if empty != nil {
			return cfg, nil, fmt.Errorf("%s at %s offers no model: %s", empty.Name, empty.BaseURL, loadHint(*empty, ""))
		}
		return cfg, nil, nil
	}
	model := models[0]
	if want := strings.TrimSpace(cfg.Model); want != "" {
		if !offers(models, want) {
			return cfg, nil, fmt.Errorf("%s at %s does not offer model %q (it offers %s): pass --model with one of them, or %s",
				s.Name, s.BaseURL, want, strings.Join(models, ", "), loadHint(s, want))
		}
		model = want
	}
	cfg.Provider, cfg.BaseURL, cfg.Model = s.Provider, s.BaseURL, model
	return cfg, &Found{Server: s, Model: model, Models: models}, nil
}

// probe asks every server for its models at once and returns the first,
// in list order, that offers one; empty is the first that answered with
// none, for the error when no server offers a model.
func probe(ctx context.Context, servers []LocalServer) (s LocalServer, models []string, empty *LocalServer) {
	ctx, cancel := context.WithTimeout(ctx, probeTimeout)
	defer cancel() // the probes still running are not needed any more
	type answer struct {
		models []string
		err    error
	}
	answers := make([]chan answer, len(servers))
	for i, srv := range servers {
		answers[i] = make(chan answer, 1)
		go func() {
			m, err := ListModels(ctx, srv.BaseURL, "")
			answers[i] <- answer{m, err}
		}()
	}
	for i := range servers {
		a := <-answers[i]
		switch {
		case a.err != nil:
		case len(a.models) > 0:
			return servers[i], a.models, empty
		case empty == nil:
			empty = &servers[i]
		}
	}
	return LocalServer{}, nil, empty
}

// offers reports whether a server offering models serves want. Ollama
// lists "llama3.1:latest" and serves it as "llama3.1" too.
func offers(models []string, want string) bool {
	return slices.Contains(models, want) || (!strings.Contains(want, ":") && slices.Contains(models, want+":latest"))
}

// loadHint says how to get model onto the server ("": any model).
func loadHint(s LocalServer, model string) string {
	name := s.Name
	if s.Provider == "custom" {
		name = "the server"
	}
	switch {
	case s.Provider == "ollama" && model == "":
		return "pull one: ollama pull llama3.1"
	case s.Provider == "ollama":
		return "pull it: ollama pull " + model
	case model == "":
		return "load one in " + name
	}
	return "load it in " + name
}

// localServers are the servers to probe: Resolver.LocalServers, else the
// ports of HERMES_LOCAL_PORTS, else DefaultLocalServers.
func (r Resolver) localServers() ([]LocalServer, error) {
	if r.LocalServers != nil {
		return r.LocalServers, nil
	}
	v := r.getenv(LocalPortsEnv)
	if v == "" {
		return DefaultLocalServers(), nil
	}
	if strings.EqualFold(v, "none") {
		return nil, nil
	}
	var out []LocalServer
	for _, f := range strings.Split(v, ",") {
		port, err := strconv.ParseUint(strings.TrimSpace(f), 10, 16)
		if err != nil || port == 0 {
			return nil, fmt.Errorf("%s: %q is not a port (want a list such as 11434,8081, or none)", LocalPortsEnv, strings.TrimSpace(f))
		}
		base := fmt.Sprintf("http://127.0.0.1:%d/v1", port)
		s := LocalServer{Name: "a local server", Provider: "custom", BaseURL: base}
		for _, d := range DefaultLocalServers() {
			if d.BaseURL == base {
				s = d
			}
		}
		out = append(out, s)
	}
	return out, nil
}
