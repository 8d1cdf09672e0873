package app

import (
	"context"
	"os"

	"github.com/hermes-go/hermes/config"
	"github.com/hermes-go/hermes/provider"
	"github.com/hermes-go/hermes/redact"
	"github.com/hermes-go/hermes/redact/harvest"
)

// newRedactor knows the secrets hermes holds, to mask them by value in tool
// output, requests and the session store: model.api_key, every value of
// HERMES_HOME/.env, the providers' key variables, and every variable of
// the process environment, which commands inherit whatever
// Options.Getenv is, whose name marks a secret or whose value is shaped
// like one (harvest.Environ). The resolved endpoints' keys and key_cmd
// output join it as they are read (addKeys, runKeyCmd), and each
// workspace's credential files as it opens (learnWorkspace).
func (rt *Runtime) newRedactor(dot map[string]string) *redact.Redactor {
	secrets := []string{rt.cfg.APIKey}
	for _, v := range dot {
		secrets = append(secrets, v)
	}
	for _, name := range keyVariables(rt.cfg) {
		if name != "" {
			secrets = append(secrets, rt.getenv(name))
		}
	}
	secrets = append(secrets, harvest.Environ(os.Environ())...)
	return redact.New(secrets...)
}

// learnWorkspace adds the secrets of a workspace's credential files
// (.env, private keys, .netrc, ...: harvest.Workspace) to the redactor,
// before any command or file tool of it can read them.
func (rt *Runtime) learnWorkspace(dir string) {
	if rt.redactor == nil {
		return
	}
	found, err := harvest.Workspace(context.Background(), dir, harvest.Limits{})
	if err != nil {
		rt.warn(err.Error())
	}
	if len(found) > 0 {
		rt.redactor.Add(found...)
	}
}

// keyVariables names every variable a provider key may be read from: the
// built-in providers' and those config.yaml names.
func keyVariables(cfg *config.Config) []string {
	var names []string
	for _, s := range provider.Providers() {
		names = append(names, s.KeyEnvs...)
	}
	for _, p := range cfg.Providers {
		names = append(names, p.KeyEnv)
	}
	fallbacks := cfg.FallbackProviders
	for _, a := range cfg.Auxiliary {
		fallbacks = append(fallbacks[:len(fallbacks):len(fallbacks)], a.FallbackProviders...)
	}
	for _, f := range fallbacks {
		names = append(names, f.KeyEnv)
	}
	return names
}

// addKeys adds the keys of resolved endpoints to the redactor.
func (rt *Runtime) addKeys(eps []provider.Endpoint) {
	if rt.redactor == nil {
		return
	}
	keys := make([]string, len(eps))
	for i, ep := range eps {
		keys[i] = ep.APIKey
	}
	rt.redactor.Add(keys...)
}

// addPoolKeys masks every key of a pool, whichever a call ends up on.
func (rt *Runtime) addPoolKeys(p *provider.Pool) {
	if rt.redactor == nil {
		return
	}
	for _, k := range p.Keys() {
		rt.redactor.Add(k.Key)
	}
}

// runKeyCmd runs a key_cmd; the key it prints is masked from then on,
// including keys printed again on a credential refresh.
func (rt *Runtime) runKeyCmd(ctx context.Context, command string) (string, error) {
	key, err := provider.RunKeyCmd(ctx, command)
	if err == nil && rt.redactor != nil {
		rt.redactor.Add(key)
	}
	return key, err
}
