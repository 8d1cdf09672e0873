package app

import (
	"context"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/hermes-go/hermes/config"
	"github.com/hermes-go/hermes/provider"
)

// ResolveEndpoints resolves cfg's primary model endpoint and its
// fallbacks as New does, without assembling a runtime (hermes doctor and
// hermes status). getenv (nil: os.Getenv) has HERMES_HOME/.env behind it.
// With discover, provider auto without a key looks for a local server
// (network: half a second at most); without, resolution reads only the
// configuration. problems are fallback entries left out.
func ResolveEndpoints(ctx context.Context, cfg *config.Config, getenv func(string) string, discover bool) (entries []provider.Endpoint, found *provider.Found, problems []error, err error) {
	if getenv == nil {
		getenv = os.Getenv
	}
	getenv, _, err = withDotEnv(cfg.Home, getenv)
	if err != nil {
		return nil, nil, nil, err
	}
	pcfg := providerConfig(cfg)
	pools, err := loadPools(ctx, cfg, pcfg, getenv, time.Now, nil)
	if err != nil {
		return nil, nil, nil, configErr(err)
	}
	r := provider.Resolver{Getenv: getenv, Pools: pools}
	if discover {
		if pcfg, found, err = r.Discover(ctx, pcfg); err != nil {
			return nil, nil, nil, configErr(err)
		}
	}
	entries, problems, err = r.Chain(ctx, pcfg)
	if err != nil {
		return nil, found, nil, configErr(err)
	}
	return entries, found, problems, nil
}

// loadPools builds the key pools of HERMES_HOME's pool file (hermes auth
// add), each with the key the environment or .env gives its provider as
// its first member. getenv has .env behind it.
func loadPools(ctx context.Context, cfg *config.Config, pcfg provider.Config, getenv func(string) string, now func() time.Time, warn func(string)) (map[string]*provider.Pool, error) {
	path := filepath.Join(cfg.Home, provider.PoolFileName)
	f, err := provider.ReadPoolFile(path)
	if err != nil || len(f.Providers) == 0 {
		return nil, err
	}
	return provider.LoadPools(path, envKeys(ctx, pcfg, getenv, slices.Collect(maps.Keys(f.Providers))), now, warn)
}

// envKeys are the keys the environment or .env gives providers ids (not
// those of key commands), as pool members.
func envKeys(ctx context.Context, pcfg provider.Config, getenv func(string) string, ids []string) map[string]provider.PoolKey {
	env := map[string]provider.PoolKey{}
	r := provider.Resolver{Getenv: getenv}
	for _, id := range ids {
		if pcfg.Providers[id].KeyCmd != "" {
			continue // a key command's key is refreshed, not pooled
		}
		ep, err := r.Resolve(ctx, provider.Config{Provider: id, Model: "-", Providers: pcfg.Providers})
		if err == nil && ep.APIKey != "" && ep.KeyEnv != "" {
			env[id] = provider.PoolKey{Label: ep.KeyEnv, Key: ep.APIKey, Env: true}
		}
	}
	return env
}

// KeyPools is what hermes auth list shows: the pool of every provider
// with keys in HERMES_HOME's pool file or a key in the environment or
// .env (that one alone, for a provider with no pooled keys), with their
// states. getenv (nil: os.Getenv) has .env put behind it.
func KeyPools(ctx context.Context, cfg *config.Config, getenv func(string) string) (map[string]*provider.Pool, error) {
	if getenv == nil {
		getenv = os.Getenv
	}
	getenv, _, err := withDotEnv(cfg.Home, getenv)
	if err != nil {
		return nil, err
	}
	path := filepath.Join(cfg.Home, provider.PoolFileName)
	f, err := provider.ReadPoolFile(path)
	if err != nil {
		return nil, err
	}
	pcfg := providerConfig(cfg)
	ids := slices.Collect(maps.Keys(f.Providers))
	for _, s := range provider.Providers() {
		if !s.KeyOptional && !s.Local && !slices.Contains(ids, s.ID) {
			ids = append(ids, s.ID)
		}
	}
	env := envKeys(ctx, pcfg, getenv, ids)
	pools, err := provider.LoadPools(path, env, time.Now, nil)
	if err != nil {
		return nil, err
	}
	for id, k := range env {
		if pools[id] == nil {
			pools[id] = provider.NewPool(id, []provider.PoolKey{k}, f.State[id], time.Now, nil)
		}
	}
	return pools, nil
}
