package provider

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"
)

// ErrNoProvider is returned (wrapped, with instructions) when nothing
// tells which provider to use.
var ErrNoProvider = errors.New("no model provider configured")

const noProviderHelp = "to get one going, either\n" +
	"  - set OPENROUTER_API_KEY, OPENAI_API_KEY or ANTHROPIC_API_KEY (in the environment or in HERMES_HOME/.env),\n" +
	"  - start Ollama: `ollama serve`, then `ollama pull llama3.1` (with no key set, hermes looks for Ollama, " +
	"LM Studio, llama.cpp and vLLM on their usual ports of 127.0.0.1, or on those HERMES_LOCAL_PORTS names),\n" +
	"  - or name an OpenAI-compatible server: --provider custom --base-url http://127.0.0.1:8080/v1 --model NAME"

// Resolver resolves endpoints. The zero value reads the process
// environment and runs key commands through the shell.
type Resolver struct {
	// Getenv reads a variable (nil: os.Getenv). Pass one that also reads
	// HERMES_HOME/.env.
	Getenv func(string) string
	// RunKeyCmd runs a key command and returns the key (nil: sh -c, 30 s).
	RunKeyCmd func(ctx context.Context, command string) (string, error)
	// Pools are the key pools by provider id (hermes auth): an endpoint
	// whose key is one of its provider's pool gets the pool, and a
	// provider with no key elsewhere takes the pool's first usable key.
	Pools map[string]*Pool
	// LocalServers are what Discover probes for provider "auto" when no
	// key is set, in order of preference. nil: the ports named by
	// HERMES_LOCAL_PORTS, else DefaultLocalServers; empty: none.
	LocalServers []LocalServer
}

// Resolve resolves the primary endpoint of cfg, reading variables through
// getenv (nil: os.Getenv).
func Resolve(cfg Config, getenv func(string) string) (Endpoint, error) {
	return Resolver{Getenv: getenv}.Resolve(context.Background(), cfg)
}

// selection is what one endpoint is resolved from: the primary model
// settings or a fallback entry.
type selection struct {
	Provider, Model, BaseURL, APIKey, KeyEnv, APIMode string
	ContextLength                                     int
}

// Resolve resolves the primary endpoint.
func (r Resolver) Resolve(ctx context.Context, cfg Config) (Endpoint, error) {
	return r.resolve(ctx, selection{
		Provider: cfg.Provider, Model: cfg.Model, BaseURL: cfg.BaseURL, APIKey: cfg.APIKey,
		APIMode: cfg.APIMode, ContextLength: cfg.ContextLength,
	}, cfg.Providers)
}

// Fallbacks resolves fallback_providers in order. An entry that cannot be
// resolved (no provider or model, no key) is left out and reported in
// problems; the others still serve.
func (r Resolver) Fallbacks(ctx context.Context, cfg Config) (eps []Endpoint, problems []error) {
	return r.entries(ctx, cfg.FallbackProviders, "fallback_providers", cfg.Providers)
}

// Chain resolves the primary endpoint followed by the fallbacks: the
// entries of a Chain. Only a failure of the primary is an error.
func (r Resolver) Chain(ctx context.Context, cfg Config) ([]Endpoint, []error, error) {
	primary, err := r.Resolve(ctx, cfg)
	if err != nil {
		return nil, nil, err
	}
	fbs, problems := r.Fallbacks(ctx, cfg)
	return append([]Endpoint{primary}, fbs...), problems, nil
}

func (r Resolver) entries(ctx context.Context, list []FallbackEntry, key string, providers map[string]ProviderConfig) ([]Endpoint, []error) {
	var eps []Endpoint
	var problems []error
	for i, f := range list {
		if strings.TrimSpace(f.Provider) == "" || strings.TrimSpace(f.Model) == "" {
			problems = append(problems, fmt.Errorf("%s[%d]: provider and model are both required", key, i))
			continue
		}
		ep, err := r.resolve(ctx, selection{
			Provider: f.Provider, Model: f.Model, BaseURL: f.BaseURL, KeyEnv: f.KeyEnv,
			APIMode: f.APIMode, ContextLength: f.ContextLength,
		}, providers)
		if err != nil {
			problems = append(problems, fmt.Errorf("%s[%d] (%s/%s): %w", key, i, f.Provider, f.Model, err))
			continue
		}
		eps = append(eps, ep)
	}
	return eps, problems
}

func (r Resolver) getenv(name string) string {
	if name == "" {
		return ""
	}
	if r.Getenv != nil {
		return strings.TrimSpace(r.Getenv(name))
	}
	return strings.TrimSpace(os.Getenv(name))
}

func (r Resolver) runKeyCmd(ctx context.Context, command string) (string, error) {
	if r.RunKeyCmd != nil {
		return r.RunKeyCmd(ctx, command)
	}
	return RunKeyCmd(ctx, command)
}

func (r Resolver) resolve(ctx context.Context, sel selection, providers map[string]ProviderConfig) (Endpoint, error) {
	id := normalizeID(sel.Provider)
	if id == "" || id == "auto" {
		var err error
		if id, err = r.detect(sel, providers); err != nil {
			return Endpoint{}, err
		}
	}
	pc, hasPC := providerConfig(providers, sel.Provider, id)
	spec, builtin := Lookup(id)
	switch {
	case builtin:
	case hasPC:
		// A provider of the user's own: an OpenAI-compatible endpoint
		// named in providers.<id>.
		spec = Spec{ID: id, KeyOptional: true}
	default:
		return Endpoint{}, fmt.Errorf("unknown provider %q: use one of %s, or describe it under providers.%s (base_url, key_env)", sel.Provider, knownIDs(), id)
	}

	ep := Endpoint{
		Provider: id, Model: strings.TrimSpace(sel.Model), ContextLength: sel.ContextLength,
		Headers: maps.Clone(pc.Headers), Timeout: pc.RequestTimeout,
	}
	ep.BaseURL = firstNonEmpty(sel.BaseURL, pc.BaseURL, r.getenv(spec.BaseURLEnv), spec.BaseURL)
	if ep.BaseURL == "" {
		return Endpoint{}, fmt.Errorf("provider %q needs a base URL: pass --base-url or set providers.%s.base_url", id, id)
	}
	ep.BaseURL = strings.TrimRight(strings.TrimSpace(ep.BaseURL), "/")
	if ep.Model == "" {
		ep.Model = spec.DefaultModel
	}
	if ep.Model == "" {
		return Endpoint{}, fmt.Errorf("no model set for provider %q at %s: pass --model or set model.default", id, ep.BaseURL)
	}
	if err := r.fillKey(ctx, &ep, sel, spec, pc); err != nil {
		return Endpoint{}, err
	}
	if pool := r.Pools[id]; pool != nil && pool.Has(ep.APIKey) {
		ep.Pool = pool
	}
	mode, err := ResolveAPIMode(firstNonEmpty(sel.APIMode, pc.APIMode), id, ep.BaseURL, ep.Model)
	if err != nil {
		return Endpoint{}, fmt.Errorf("provider %q: %w", id, err)
	}
	ep.APIMode = mode
	return ep, nil
}

// fillKey finds the key: --api-key, then providers.<id>.key_cmd, then the
// named key variable (fallback entry, then providers.<id>.key_env), then
// the provider's usual variables.
func (r Resolver) fillKey(ctx context.Context, ep *Endpoint, sel selection, spec Spec, pc ProviderConfig) error {
	if k := strings.TrimSpace(sel.APIKey); k != "" {
		ep.APIKey = k
		return nil
	}
	if pc.KeyCmd != "" {
		k, err := r.runKeyCmd(ctx, pc.KeyCmd)
		if err != nil {
			return fmt.Errorf("providers.%s.key_cmd: %w", ep.Provider, err)
		}
		ep.APIKey, ep.KeyCmd = k, pc.KeyCmd
		return nil
	}
	names := keyEnvs(sel.KeyEnv, pc.KeyEnv, spec.KeyEnvs)
	for _, n := range names {
		if k := r.getenv(n); k != "" {
			ep.APIKey, ep.KeyEnv = k, n
			return nil
		}
	}
	if pool := r.Pools[ep.Provider]; pool != nil {
		if k, ok := pool.Pick(); ok {
			ep.APIKey = k.Key
			return nil
		}
	}
	if spec.KeyOptional {
		// Remember an explicitly named variable so a refresh can pick
		// up a key set later.
		ep.KeyEnv = firstNonEmpty(sel.KeyEnv, pc.KeyEnv)
		return nil
	}
	if len(names) == 0 {
		return fmt.Errorf("no API key for provider %q: set providers.%s.key_cmd or key_env, or pass --api-key", ep.Provider, ep.Provider)
	}
	return fmt.Errorf("no API key for provider %q: set %s (or providers.%s.key_cmd)", ep.Provider, strings.Join(names, " or "), ep.Provider)
}

// detect implements provider "auto": the provider serving an explicit base
// URL; else a key's well-known prefix; else the first provider, in
// AutoOrder, whose credentials are present.
func (r Resolver) detect(sel selection, providers map[string]ProviderConfig) (string, error) {
	if strings.TrimSpace(sel.BaseURL) != "" {
		return providerForURL(sel.BaseURL), nil
	}
	if k := strings.TrimSpace(sel.APIKey); k != "" {
		switch {
		case strings.HasPrefix(k, "sk-or-"):
			return "openrouter", nil
		case strings.HasPrefix(k, "sk-ant-"):
			return "anthropic", nil
		}
		return "openai", nil
	}
	for _, id := range AutoOrder {
		spec, _ := Lookup(id)
		pc := providers[id]
		if pc.KeyCmd != "" {
			return id, nil
		}
		for _, n := range keyEnvs(sel.KeyEnv, pc.KeyEnv, spec.KeyEnvs) {
			if r.getenv(n) != "" {
				return id, nil
			}
		}
		if p := r.Pools[id]; p != nil && p.Len() > 0 {
			return id, nil
		}
	}
	return "", fmt.Errorf("%w: %s", ErrNoProvider, noProviderHelp)
}

// Refresh re-reads an endpoint's credentials: re-runs its key command or
// re-reads its key variable. changed reports a different key.
func (r Resolver) Refresh(ctx context.Context, ep Endpoint) (out Endpoint, changed bool, err error) {
	var key string
	switch {
	case ep.KeyCmd != "":
		if key, err = r.runKeyCmd(ctx, ep.KeyCmd); err != nil {
			return ep, false, fmt.Errorf("refreshing %s credentials: %w", ep.Provider, err)
		}
	case ep.KeyEnv != "":
		if key = r.getenv(ep.KeyEnv); key == "" {
			return ep, false, fmt.Errorf("refreshing %s credentials: %s is empty", ep.Provider, ep.KeyEnv)
		}
	default:
		return ep, false, nil
	}
	changed = key != ep.APIKey
	ep.APIKey = key
	return ep, changed, nil
}

func providerConfig(providers map[string]ProviderConfig, raw, id string) (ProviderConfig, bool) {
	if pc, ok := providers[id]; ok {
		return pc, true
	}
	pc, ok := providers[strings.TrimSpace(raw)]
	return pc, ok
}

func keyEnvs(explicit, configured string, builtin []string) []string {
	var out []string
	for _, n := range append([]string{explicit, configured}, builtin...) {
		if n = strings.TrimSpace(n); n != "" && !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	return out
}

func knownIDs() string {
	ids := make([]string, 0, len(builtins))
	for _, s := range builtins {
		ids = append(ids, s.ID)
	}
	return strings.Join(ids, ", ")
}

func firstNonEmpty(vals ...string) string {
	for _, v := range vals {
		if v = strings.TrimSpace(v); v != "" {
			return v
		}
	}
	return ""
}
