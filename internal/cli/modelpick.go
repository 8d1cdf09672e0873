package cli

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/hermes-go/hermes/app"
	"github.com/hermes-go/hermes/config"
	"github.com/hermes-go/hermes/llm"
	"github.com/hermes-go/hermes/provider"
	"github.com/hermes-go/hermes/provider/transport"
)

// testCallTimeout bounds the one small call that proves a setup works.
const testCallTimeout = 90 * time.Second

// homeEnv is getenv falling back to HERMES_HOME/.env, as the runtime
// reads provider keys.
func homeEnv(e *env, home string) (func(string) string, error) {
	dot, err := config.LoadDotEnv(filepath.Join(home, ".env"))
	if err != nil {
		return nil, err
	}
	return func(k string) string {
		if v := e.getenv(k); v != "" {
			return v
		}
		return dot[k]
	}, nil
}

// providerConf is config.yaml's providers.* in package provider's form.
func providerConf(cfg *config.Config) map[string]provider.ProviderConfig {
	out := map[string]provider.ProviderConfig{}
	for id, p := range cfg.Providers {
		out[id] = provider.ProviderConfig{BaseURL: p.BaseURL, KeyEnv: p.KeyEnv, KeyCmd: p.KeyCmd, APIMode: p.APIMode,
			RequestTimeout: config.Seconds(p.RequestTimeout)}
	}
	return out
}

// keyVariable is the variable of .env that holds provider id's key, and
// whether providers.<id>.key_env must name it (a provider whose usual
// variables are none, or custom, whose usual OPENAI_API_KEY would clash
// with OpenAI's).
func keyVariable(cfg *config.Config, id string) (name string, setKeyEnv bool) {
	if v := cfg.Providers[id].KeyEnv; v != "" {
		return v, false
	}
	spec, _ := provider.Lookup(id)
	if id != "custom" && len(spec.KeyEnvs) > 0 {
		return spec.KeyEnvs[0], false
	}
	return "HERMES_" + strings.ToUpper(strings.NewReplacer("-", "_", ".", "_").Replace(id)) + "_API_KEY", true
}

// existingKey is a key already set for provider id (environment or
// .env), and the variable it is in.
func existingKey(cfg *config.Config, getenv func(string) string, id string) (value, name string) {
	spec, _ := provider.Lookup(id)
	names := []string{cfg.Providers[id].KeyEnv}
	if id != "custom" {
		names = append(names, spec.KeyEnvs...)
	} else {
		n, _ := keyVariable(cfg, id)
		names = append(names, n)
	}
	for _, n := range names {
		if n != "" && getenv(n) != "" {
			return getenv(n), n
		}
	}
	return "", ""
}

// endpointFor resolves provider id at baseURL (empty: its usual one)
// with key (empty: the one configured), for listing models and the test
// call.
func endpointFor(ctx context.Context, cfg *config.Config, getenv func(string) string, id, baseURL, model, key, apiMode string) (provider.Endpoint, error) {
	if model == "" {
		model = "-" // listing needs none
	}
	return provider.Resolver{Getenv: getenv}.Resolve(ctx, provider.Config{
		Provider: id, Model: model, BaseURL: baseURL, APIKey: key, APIMode: apiMode, Providers: providerConf(cfg),
	})
}

// testCall makes one small real call to ep and returns the reply; an
// error says why the provider refused it.
func testCall(ctx context.Context, ep provider.Endpoint) (string, error) {
	client, err := transport.New(ep.APIMode, ep.Options())
	if err != nil {
		return "", err
	}
	ctx, cancel := context.WithTimeout(ctx, testCallTimeout)
	defer cancel()
	res, err := client.Complete(ctx, &llm.Request{
		Model: ep.Model, MaxTokens: 64,
		Messages: []llm.Message{llm.User("This is a connection check. Reply with the single word: ready")},
	}, nil)
	if err != nil {
		return "", fmt.Errorf("the test call to %s at %s failed: %w", ep, ep.BaseURL, err)
	}
	return strings.TrimSpace(res.Message.Content), nil
}

// offered reports whether a listing names model (Ollama's
// "name:latest" serves "name" too).
func offered(models []string, model string) bool {
	return slices.Contains(models, model) || !strings.Contains(model, ":") && slices.Contains(models, model+":latest")
}

// refused reports whether a listing failed on the key (401, 403).
func refused(err error) bool {
	return err != nil && (strings.Contains(err.Error(), "401") || strings.Contains(err.Error(), "403"))
}

// listFirst shows at most n models of a list, for an error message.
func listFirst(models []string, n int) string {
	if len(models) <= n {
		return strings.Join(models, ", ")
	}
	return strings.Join(models[:n], ", ") + fmt.Sprintf(", ... (%d in all)", len(models))
}

// loadForEdit loads config.yaml for a command that changes it: an
// invalid file is an error saying how to mend it first.
func loadForEdit(e *env) (*config.Config, error) {
	cfg, err := app.LoadConfig(e.getenv)
	if err != nil {
		var ce *app.ConfigError
		if errors.As(err, &ce) {
			err = fmt.Errorf("%w\n(mend it first: hermes config edit, or hermes config check to see what is wrong)", err)
		}
		return nil, &exitError{code: exitUsage, err: err}
	}
	return cfg, nil
}
