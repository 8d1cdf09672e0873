package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/spf13/cobra"

	"github.com/hermes-go/hermes/config"
	"github.com/hermes-go/hermes/provider"
)

// modelFlags are hermes model's flags.
type modelFlags struct {
	provider, model, baseURL string
	fallbacks                []string
	noFallbacks              bool
	aux                      []string
	json                     bool
}

func newModelCmd(e *env) *cobra.Command {
	f := &modelFlags{}
	c := &cobra.Command{
		Use:   "model",
		Short: "Pick the provider and model, the fallback chain and the auxiliary models from what providers offer",
		Long: "hermes model lists what the providers you can reach offer (their /models: the configured ones, those\n" +
			"with a key set, the model servers running on this machine) and writes the choice to config.yaml,\n" +
			"keeping its comments. On a terminal, without flags, it asks; otherwise it prints the list, and the\n" +
			"flags make the choice:\n\n" +
			"  --provider P --model M [--base-url URL]   the main model\n" +
			"  --fallback P:M (repeated)                 the fallback chain, in order (--no-fallbacks: none)\n" +
			"  --aux TASK=P:M                            an auxiliary task's model (TASK=: back to the main one)\n\n" +
			"Auxiliary tasks: " + strings.Join(config.AuxTasks(), ", ") + ". A model the provider does not list is refused.",
		Example: "  hermes model\n  hermes model --json\n  hermes model --provider openrouter --model anthropic/claude-sonnet-4.5\n" +
			"  hermes model --fallback openai:gpt-5 --fallback anthropic:claude-sonnet-4-5\n  hermes model --aux compression=openrouter:google/gemini-2.5-flash",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runModelCmd(cmd.Context(), e, f)
		},
	}
	fl := c.Flags()
	fl.StringVar(&f.provider, "provider", "", "the main model's provider (default: the current one)")
	fl.StringVar(&f.model, "model", "", "the main model")
	fl.StringVar(&f.baseURL, "base-url", "", "the main provider's base URL (custom servers)")
	fl.StringArrayVar(&f.fallbacks, "fallback", nil, "a fallback PROVIDER:MODEL, in order; replaces the chain")
	fl.BoolVar(&f.noFallbacks, "no-fallbacks", false, "remove the fallback chain")
	fl.StringArrayVar(&f.aux, "aux", nil, "TASK=PROVIDER:MODEL for an auxiliary task (TASK= for the main model)")
	fl.BoolVar(&f.json, "json", false, "print the current choice and what each provider offers as JSON")
	return c
}

// modelRef is one provider and model.
type modelRef struct {
	Provider string `json:"provider"`
	Model    string `json:"model"`
	BaseURL  string `json:"base_url,omitempty"`
}

// providerModels is what one provider offers.
type providerModels struct {
	ID      string   `json:"id"`
	BaseURL string   `json:"base_url"`
	Models  []string `json:"models"`
	Error   string   `json:"error,omitempty"`
}

// modelListing is hermes model --json.
type modelListing struct {
	Current   modelRef            `json:"current"`
	Fallbacks []modelRef          `json:"fallbacks"`
	Auxiliary map[string]modelRef `json:"auxiliary"`
	Providers []providerModels    `json:"providers"`
}

func runModelCmd(ctx context.Context, e *env, f *modelFlags) error {
	if ctx == nil {
		ctx = context.Background()
	}
	cfg, err := loadForEdit(e)
	if err != nil {
		return err
	}
	getenv, err := homeEnv(e, cfg.Home)
	if err != nil {
		return &exitError{code: exitFailed, err: err}
	}
	setting := f.provider != "" || f.model != "" || f.baseURL != "" || len(f.fallbacks) > 0 || f.noFallbacks || len(f.aux) > 0
	if setting {
		return setModels(ctx, e, f, cfg, getenv)
	}
	l := listModels(ctx, cfg, getenv)
	if f.json {
		return writeJSON(e, l)
	}
	if isTerminal(e.stdin) {
		return pickModels(ctx, e, newPrompter(e), cfg, getenv, l)
	}
	printListing(e, l)
	return nil
}

// currentModels is cfg's main model, fallbacks and auxiliary models.
func currentModels(cfg *config.Config) modelListing {
	l := modelListing{Current: modelRef{Provider: cfg.Provider, Model: cfg.Model.Name, BaseURL: cfg.BaseURL},
		Fallbacks: []modelRef{}, Auxiliary: map[string]modelRef{}}
	for _, fb := range cfg.FallbackProviders {
		l.Fallbacks = append(l.Fallbacks, modelRef{fb.Provider, fb.Model, fb.BaseURL})
	}
	for task, a := range cfg.Auxiliary {
		l.Auxiliary[task] = modelRef{a.Provider, a.Model, a.BaseURL}
	}
	return l
}

// listModels asks every provider within reach for its models, at once:
// the main one, the fallbacks', those under providers:, the built-in
// ones with a key set, and the servers running on this machine.
func listModels(ctx context.Context, cfg *config.Config, getenv func(string) string) modelListing {
	l := currentModels(cfg)
	type target struct{ id, url string }
	var targets []target
	add := func(id, url string) {
		id = normalizeProvider(id)
		if id == "" || id == "auto" || slices.ContainsFunc(targets, func(t target) bool { return t.id == id && (t.url == url || url == "") }) {
			return
		}
		targets = append(targets, target{id, url})
	}
	if cfg.Provider != "" || cfg.BaseURL != "" {
		add(firstOf(cfg.Provider, "custom"), cfg.BaseURL)
	}
	for _, fb := range cfg.FallbackProviders {
		add(fb.Provider, fb.BaseURL)
	}
	for _, id := range sortedProviderKeys(cfg) {
		add(id, "")
	}
	for _, s := range provider.Providers() {
		if v, _ := existingKey(cfg, getenv, s.ID); v != "" && !s.KeyOptional {
			add(s.ID, "")
		}
	}
	if found, err := (provider.Resolver{Getenv: getenv}).FindLocalServers(ctx); err == nil {
		for _, fs := range found {
			add(fs.Server.Provider, fs.Server.BaseURL)
		}
	}
	l.Providers = make([]providerModels, len(targets))
	var wg sync.WaitGroup
	for i, t := range targets {
		wg.Go(func() {
			pm := providerModels{ID: t.id, BaseURL: t.url, Models: []string{}}
			ep, err := endpointFor(ctx, cfg, getenv, t.id, t.url, "", "", "")
			if err == nil {
				pm.BaseURL = ep.BaseURL
				var ms []string
				if ms, err = provider.EndpointModels(ctx, ep); err == nil {
					pm.Models = ms
				}
			}
			if err != nil {
				pm.Error = err.Error()
			}
			l.Providers[i] = pm
		})
	}
	wg.Wait()
	return l
}

func sortedProviderKeys(cfg *config.Config) []string {
	var ids []string
	for id := range cfg.Providers {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	return ids
}

func printListing(e *env, l modelListing) {
	w := e.stdout
	fmt.Fprintf(w, "Model: %s\n", refString(l.Current))
	if len(l.Fallbacks) > 0 {
		var fb []string
		for _, r := range l.Fallbacks {
			fb = append(fb, refString(r))
		}
		fmt.Fprintf(w, "Fallbacks: %s\n", strings.Join(fb, " → "))
	}
	for _, task := range config.AuxTasks() {
		if r, ok := l.Auxiliary[task]; ok {
			fmt.Fprintf(w, "Auxiliary %s: %s\n", task, refString(r))
		}
	}
	if len(l.Providers) == 0 {
		fmt.Fprintln(w, "\nNo provider within reach: set a key or start a model server (hermes setup).")
	}
	for _, p := range l.Providers {
		if p.Error != "" {
			fmt.Fprintf(w, "\n%s (%s): %s\n", p.ID, p.BaseURL, p.Error)
			continue
		}
		fmt.Fprintf(w, "\n%s (%s), %d models:\n", p.ID, p.BaseURL, len(p.Models))
		for _, m := range p.Models {
			fmt.Fprintf(w, "  %s:%s\n", p.ID, m)
		}
	}
}

func refString(r modelRef) string {
	s := firstOf(r.Model, "(not set)")
	if r.Provider != "" {
		s = r.Provider + ":" + s
	}
	if r.BaseURL != "" {
		s += " at " + r.BaseURL
	}
	return s
}

// splitRef splits PROVIDER:MODEL (a model may hold colons, as Ollama's
// name:tag).
func splitRef(s string) (modelRef, error) {
	p, m, ok := strings.Cut(strings.TrimSpace(s), ":")
	if !ok || p == "" || m == "" {
		return modelRef{}, fmt.Errorf("%q is not PROVIDER:MODEL", s)
	}
	return modelRef{Provider: normalizeProvider(p), Model: m}, nil
}

// checkOffered refuses a model its provider's listing lacks; a provider
// that cannot be asked lets it through.
func checkOffered(ctx context.Context, cfg *config.Config, getenv func(string) string, r modelRef) (string, error) {
	if r.BaseURL == "" && cfg.Providers[r.Provider].BaseURL == "" && r.Provider == normalizeProvider(cfg.Provider) {
		r.BaseURL = cfg.BaseURL // the main provider's server
	}
	if _, ok := provider.Lookup(r.Provider); !ok {
		if _, own := cfg.Providers[r.Provider]; !own {
			return "", fmt.Errorf("unknown provider %q: use one of %s, or describe it under providers.%s", r.Provider, providerIDs(), r.Provider)
		}
	}
	ep, err := endpointFor(ctx, cfg, getenv, r.Provider, r.BaseURL, r.Model, "", "")
	if err != nil {
		return "", err
	}
	models, err := provider.EndpointModels(ctx, ep)
	if err != nil {
		return ep.BaseURL, nil
	}
	if !offered(models, r.Model) {
		return "", fmt.Errorf("%s does not offer model %q (it offers %s)", r.Provider, r.Model, listFirst(models, 20))
	}
	return ep.BaseURL, nil
}

// setModels writes the choices the flags make, all at once or none.
func setModels(ctx context.Context, e *env, f *modelFlags, cfg *config.Config, getenv func(string) string) error {
	cfgPath := filepath.Join(cfg.Home, "config.yaml")
	before, err := os.ReadFile(cfgPath)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return &exitError{code: exitFailed, err: err}
	}
	var changes []config.Change
	if f.provider != "" || f.model != "" || f.baseURL != "" {
		r := modelRef{Provider: normalizeProvider(firstOf(f.provider, cfg.Provider)), Model: firstOf(f.model, cfg.Model.Name), BaseURL: f.baseURL}
		if r.Provider == "" && r.BaseURL != "" {
			r.Provider = "custom"
		}
		if r.Provider == "" || r.Model == "" {
			return &exitError{code: exitUsage, err: errors.New("the main model needs --provider and --model")}
		}
		if r.BaseURL == "" && r.Provider == normalizeProvider(cfg.Provider) {
			r.BaseURL = cfg.BaseURL
		}
		if _, err := checkOffered(ctx, cfg, getenv, r); err != nil {
			return &exitError{code: exitUsage, err: fmt.Errorf("%w; nothing was written", err)}
		}
		spec, _ := provider.Lookup(r.Provider)
		changes = append(changes, modelChanges(before, r.Provider, firstOf(r.BaseURL, cfg.Providers[r.Provider].BaseURL, spec.BaseURL), spec.BaseURL, r.Model, "")...)
	}
	if f.noFallbacks {
		changes = append(changes, config.Change{Key: "fallback_providers", Unset: true})
	}
	if len(f.fallbacks) > 0 {
		var items []string
		for _, s := range f.fallbacks {
			r, err := splitRef(s)
			if err != nil {
				return &exitError{code: exitUsage, err: fmt.Errorf("--fallback: %w", err)}
			}
			url, err := checkOffered(ctx, cfg, getenv, r)
			if err != nil {
				return &exitError{code: exitUsage, err: fmt.Errorf("--fallback %s: %w; nothing was written", s, err)}
			}
			item := fmt.Sprintf("{provider: %s, model: %s", yamlString(r.Provider), yamlString(r.Model))
			if u := ownURL(cfg, r.Provider, url); u != "" {
				item += ", base_url: " + yamlString(u)
			}
			items = append(items, item+"}")
		}
		changes = append(changes, config.Change{Key: "fallback_providers", Value: "[" + strings.Join(items, ", ") + "]"})
	}
	for _, a := range f.aux {
		task, ref, _ := strings.Cut(a, "=")
		task = strings.TrimSpace(task)
		if !slices.Contains(config.AuxTasks(), task) {
			return &exitError{code: exitUsage, err: fmt.Errorf("--aux %s: no task %q (tasks: %s)", a, task, strings.Join(config.AuxTasks(), ", "))}
		}
		if strings.TrimSpace(ref) == "" || ref == "main" {
			changes = append(changes, config.Change{Key: "auxiliary." + task, Unset: true})
			continue
		}
		r, err := splitRef(ref)
		if err != nil {
			return &exitError{code: exitUsage, err: fmt.Errorf("--aux %s: %w", a, err)}
		}
		url, err := checkOffered(ctx, cfg, getenv, r)
		if err != nil {
			return &exitError{code: exitUsage, err: fmt.Errorf("--aux %s: %w; nothing was written", a, err)}
		}
		changes = append(changes, config.Change{Key: "auxiliary." + task + ".provider", Value: r.Provider},
			config.Change{Key: "auxiliary." + task + ".model", Value: r.Model})
		if u := ownURL(cfg, r.Provider, url); u != "" {
			changes = append(changes, config.Change{Key: "auxiliary." + task + ".base_url", Value: u})
		}
	}
	if err := config.SetKeys(cfgPath, changes...); err != nil {
		return &exitError{code: exitFailed, err: fmt.Errorf("%w\n%s was not changed.", err, cfgPath)}
	}
	after, err := loadForEdit(e)
	if err != nil {
		return err
	}
	l := currentModels(after)
	if f.json {
		return writeJSON(e, l)
	}
	fmt.Fprintf(e.stdout, "Wrote to %s:\n", cfgPath)
	printListing(e, l)
	return nil
}

// ownURL is the base URL an entry on provider id must name: url, unless
// the provider's usual one or providers.<id>.base_url says it already.
func ownURL(cfg *config.Config, id, url string) string {
	spec, _ := provider.Lookup(id)
	if url == "" || url == strings.TrimRight(firstOf(cfg.Providers[id].BaseURL, spec.BaseURL), "/") {
		return ""
	}
	return url
}

// yamlString is s as a YAML scalar in a flow mapping.
func yamlString(s string) string {
	if strings.ContainsAny(s, ",{}[]:#'\"") || strings.TrimSpace(s) != s {
		return fmt.Sprintf("%q", s)
	}
	return s
}

// pickModels asks what to change (the main model, a fallback, an
// auxiliary task's model), then the provider and model, from l.
func pickModels(ctx context.Context, e *env, p prompter, cfg *config.Config, getenv func(string) string, l modelListing) error {
	var reach []providerModels
	for _, pm := range l.Providers {
		if pm.Error == "" && len(pm.Models) > 0 {
			reach = append(reach, pm)
		}
	}
	if len(reach) == 0 {
		return &exitError{code: exitFailed, err: errors.New("no provider within reach lists models: set one up first (hermes setup)")}
	}
	what := []option{{"main", "the main model, now " + refString(l.Current)}, {"fallback", "add a model to the fallback chain"}}
	if len(l.Fallbacks) > 0 {
		what = append(what, option{"no-fallbacks", "remove the fallback chain"})
	}
	what = append(what, option{"auxiliary", "the model of an auxiliary task (compression, vision, ...)"})
	i, err := p.choose("Change", what, 0)
	if err != nil {
		return &exitError{code: exitFailed, err: err}
	}
	f := &modelFlags{}
	if what[i].name == "no-fallbacks" {
		f.noFallbacks = true
		return setModels(ctx, e, f, cfg, getenv)
	}
	task := ""
	if what[i].name == "auxiliary" {
		tasks := config.AuxTasks()
		opts := make([]option, len(tasks))
		for j, t := range tasks {
			opts[j] = option{name: t}
			if r, ok := l.Auxiliary[t]; ok {
				opts[j].detail = "now " + refString(r)
			}
		}
		j, err := p.choose("Task", opts, 0)
		if err != nil {
			return &exitError{code: exitFailed, err: err}
		}
		task = tasks[j]
	}
	popts := make([]option, len(reach))
	for j, pm := range reach {
		popts[j] = option{pm.ID, fmt.Sprintf("%s, %d models", pm.BaseURL, len(pm.Models))}
	}
	j, err := p.choose("Provider", popts, 0)
	if err != nil {
		return &exitError{code: exitFailed, err: err}
	}
	pm := reach[j]
	mopts := make([]option, len(pm.Models))
	def := 0
	for k, m := range pm.Models {
		mopts[k] = option{name: m}
		if m == l.Current.Model {
			def = k
		}
	}
	k, err := p.choose("Model", mopts, def)
	if err != nil {
		return &exitError{code: exitFailed, err: err}
	}
	ref := pm.ID + ":" + pm.Models[k]
	switch what[i].name {
	case "main":
		f.provider, f.model = pm.ID, pm.Models[k]
		spec, _ := provider.Lookup(pm.ID)
		if pm.BaseURL != spec.BaseURL {
			f.baseURL = pm.BaseURL
		}
	case "fallback":
		for _, r := range l.Fallbacks {
			f.fallbacks = append(f.fallbacks, r.Provider+":"+r.Model)
		}
		f.fallbacks = append(f.fallbacks, ref)
	case "auxiliary":
		f.aux = []string{task + "=" + ref}
	}
	return setModels(ctx, e, f, cfg, getenv)
}
