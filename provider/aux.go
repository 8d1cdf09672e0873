package provider

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"
)

// Auxiliary tasks: side jobs with a model of their own (auxiliary.<task>).
const (
	TaskCompression     = "compression"
	TaskSessionSearch   = "session_search"
	TaskTitleGeneration = "title_generation"
	TaskVision          = "vision"
	TaskWebExtract      = "web_extract"
)

// AuxTasks lists the auxiliary tasks.
var AuxTasks = []string{TaskCompression, TaskSessionSearch, TaskTitleGeneration, TaskVision, TaskWebExtract}

// auxTimeout is a task's default per-attempt bound: a summary of a long
// history takes longer than a title.
func auxTimeout(task string) time.Duration {
	if task == TaskCompression {
		return 120 * time.Second
	}
	return 30 * time.Second
}

// Auxiliary resolves the endpoints of an auxiliary task's chain:
//
//   - provider "main", "auto" or "" with no model and no base URL: the
//     primary endpoint;
//   - "main"/"auto"/"" with a model: the primary provider with that model;
//   - any other provider: that provider (its model, base_url, api_key);
//
// followed by auxiliary.<task>.fallback_providers, then the main
// fallback_providers, without repeats. Every entry gets the task's
// timeout. An auxiliary provider that cannot be resolved is reported in
// problems and the task runs on the primary. Only an unresolvable primary
// is an error.
func (r Resolver) Auxiliary(ctx context.Context, task string, cfg Config) (eps []Endpoint, problems []error, err error) {
	if !slices.Contains(AuxTasks, task) {
		return nil, nil, fmt.Errorf("unknown auxiliary task %q (want one of %s)", task, strings.Join(AuxTasks, ", "))
	}
	ac := cfg.Auxiliary[task]
	main, err := r.Resolve(ctx, cfg)
	if err != nil {
		return nil, nil, err
	}
	head := main
	pid := normalizeID(ac.Provider)
	usesMain := pid == "" || pid == "main" || pid == "auto"
	switch {
	case usesMain && ac.Model == "" && ac.BaseURL == "":
	default:
		sel := selection{Provider: ac.Provider, Model: ac.Model, BaseURL: ac.BaseURL, APIKey: ac.APIKey, APIMode: ac.APIMode}
		if usesMain {
			sel.Provider = main.Provider
			sel.BaseURL = firstNonEmpty(ac.BaseURL, cfg.BaseURL)
			sel.APIKey = firstNonEmpty(ac.APIKey, cfg.APIKey)
		}
		ep, rerr := r.resolve(ctx, sel, cfg.Providers)
		if rerr != nil {
			problems = append(problems, fmt.Errorf("auxiliary.%s: %w; using the main model", task, rerr))
		} else {
			head = ep
		}
	}
	taskFbs, p1 := r.entries(ctx, ac.FallbackProviders, "auxiliary."+task+".fallback_providers", cfg.Providers)
	mainFbs, p2 := r.Fallbacks(ctx, cfg)
	problems = append(append(problems, p1...), p2...)

	timeout := ac.Timeout
	if timeout <= 0 {
		timeout = auxTimeout(task)
	}
	seen := map[string]bool{}
	for _, ep := range append(append([]Endpoint{head}, taskFbs...), mainFbs...) {
		k := ep.Provider + "|" + ep.Model + "|" + ep.BaseURL
		if seen[k] {
			continue
		}
		seen[k] = true
		ep.Timeout = timeout
		eps = append(eps, ep)
	}
	return eps, problems, nil
}

// NewAuxiliary builds the Chain of an auxiliary task (see
// Resolver.Auxiliary), resolving with opts.Resolver.
func NewAuxiliary(ctx context.Context, task string, cfg Config, opts ChainOptions) (*Chain, []error, error) {
	eps, problems, err := opts.Resolver.Auxiliary(ctx, task, cfg)
	if err != nil {
		return nil, problems, fmt.Errorf("auxiliary %s model: %w", task, err)
	}
	c, err := NewChain(eps, opts)
	if err != nil {
		return nil, problems, fmt.Errorf("auxiliary %s model: %w", task, err)
	}
	return c, problems, nil
}
