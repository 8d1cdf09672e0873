package app

import (
	"path/filepath"

	"github.com/hermes-go/hermes/config"
	"github.com/hermes-go/hermes/provider"
)

// ConfigError is a configuration problem: a bad config.yaml, no usable
// provider, an invalid setting, a HERMES_HOME that cannot be written, a
// session to resume that does not exist or that another process is
// writing (errors.Is session.ErrBusy). The hermes command exits with
// status 2 on it.
type ConfigError struct{ Err error }

func (e *ConfigError) Error() string { return e.Err.Error() }
func (e *ConfigError) Unwrap() error { return e.Err }

func configErr(err error) error {
	if err == nil {
		return nil
	}
	return &ConfigError{err}
}

// LoadConfig reads HERMES_HOME's .env and config.yaml over the defaults.
// getenv is the process environment (os.Getenv); values in .env fill
// what it leaves unset, for config.yaml's environment fallbacks and, in
// New, for provider keys.
func LoadConfig(getenv func(string) string) (*config.Config, error) {
	env, _, err := withDotEnv(config.Home(getenv), getenv)
	if err != nil {
		return nil, err
	}
	cfg, err := config.Load(config.Home(getenv), env)
	if err != nil {
		return nil, configErr(err)
	}
	return cfg, nil
}

// withDotEnv returns getenv falling back to HERMES_HOME/.env, and the
// values of .env.
func withDotEnv(home string, getenv func(string) string) (func(string) string, map[string]string, error) {
	dot, err := config.LoadDotEnv(filepath.Join(home, ".env"))
	if err != nil {
		return nil, nil, configErr(err)
	}
	return func(k string) string {
		if v := getenv(k); v != "" {
			return v
		}
		return dot[k]
	}, dot, nil
}

// providerConfig is config.yaml's model, provider and auxiliary keys in
// the form package provider resolves.
func providerConfig(cfg *config.Config) provider.Config {
	pc := provider.Config{
		Provider: cfg.Provider, Model: cfg.Model.Name, BaseURL: cfg.BaseURL, APIKey: cfg.APIKey,
		APIMode: cfg.APIMode, ContextLength: cfg.Model.ContextLength,
		Providers: map[string]provider.ProviderConfig{},
		Auxiliary: map[string]provider.AuxConfig{},
	}
	for id, p := range cfg.Providers {
		pc.Providers[id] = provider.ProviderConfig{BaseURL: p.BaseURL, KeyEnv: p.KeyEnv, KeyCmd: p.KeyCmd,
			APIMode: p.APIMode, RequestTimeout: config.Seconds(p.RequestTimeout)}
	}
	pc.FallbackProviders = fallbackEntries(cfg.FallbackProviders)
	for task, a := range cfg.Auxiliary {
		pc.Auxiliary[task] = provider.AuxConfig{Provider: a.Provider, Model: a.Model, BaseURL: a.BaseURL,
			APIMode: a.APIMode, Timeout: config.Seconds(a.Timeout), FallbackProviders: fallbackEntries(a.FallbackProviders)}
	}
	return pc
}

func fallbackEntries(in []config.FallbackProvider) []provider.FallbackEntry {
	var out []provider.FallbackEntry
	for _, f := range in {
		out = append(out, provider.FallbackEntry{Provider: f.Provider, Model: f.Model, BaseURL: f.BaseURL, KeyEnv: f.KeyEnv, APIMode: f.APIMode})
	}
	return out
}

// toolsetEnabled reports whether the toolsets setting allows a toolset.
func toolsetEnabled(cfg *config.Config, name string) bool {
	if len(cfg.Toolsets) == 0 {
		return true
	}
	for _, t := range cfg.Toolsets {
		if t == name || t == "all" {
			return true
		}
	}
	return false
}
