package app

import (
	"context"
	"os"
	"path/filepath"
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
	env := map[string]provider.PoolKey{}
	r := provider.Resolver{Getenv: getenv}
	for id := range f.Providers {
		if pcfg.Providers[id].KeyCmd != "" {
			continue // a key command's key is refreshed, not pooled
		}
		ep, err := r.Resolve(ctx, provider.Config{Provider: id, Model: "-", Providers: pcfg.Providers})
		if err == nil && ep.APIKey != "" && ep.KeyEnv != "" {
			env[id] = provider.PoolKey{Label: ep.KeyEnv, Key: ep.APIKey, Env: true}
		}
	}
	return provider.LoadPools(path, env, now, warn)
}
