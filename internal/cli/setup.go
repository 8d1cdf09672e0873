package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"go.yaml.in/yaml/v4"

	"github.com/hermes-go/hermes/config"
	"github.com/hermes-go/hermes/provider"
)

// setupModelFlags are the answers hermes setup and hermes setup model
// take as flags; with --non-interactive nothing else is asked.
type setupModelFlags struct {
	nonInteractive bool
	provider       string
	baseURL        string
	apiKey         string
	model          string
	apiMode        string
	json           bool
}

func addSetupModelFlags(c *cobra.Command, f *setupModelFlags) {
	fl := c.Flags()
	fl.BoolVar(&f.nonInteractive, "non-interactive", false, "ask nothing: the flags are the answers (--provider or --base-url required)")
	fl.StringVar(&f.provider, "provider", "", "provider id: openrouter, anthropic, openai, openai-codex, custom, ollama, vllm, llamacpp, lmstudio, or one under providers:")
	fl.StringVar(&f.baseURL, "base-url", "", "the provider's base URL (custom: required; alone it means custom)")
	fl.StringVar(&f.apiKey, "api-key", "", "the API key, written to $HERMES_HOME/.env (default: the one already set)")
	fl.StringVar(&f.model, "model", "", "the model (default: the current one, else the provider's first)")
	fl.StringVar(&f.apiMode, "api-mode", "", "chat_completions, codex_responses or anthropic_messages (default: derived)")
	fl.BoolVar(&f.json, "json", false, "print what was written as JSON")
}

func newSetupCmd(e *env) *cobra.Command {
	f := &setupModelFlags{}
	c := &cobra.Command{
		Use:   "setup",
		Short: "Set hermes up: find or choose a provider, its key and model, prove it works, write the config",
		Long: "hermes setup looks for model servers on this machine, offers the providers hermes knows, asks for\n" +
			"the key (not shown as it is typed) and writes it to $HERMES_HOME/.env (readable by you only),\n" +
			"lists the provider's models to pick from, makes one small real call to prove they work, and only\n" +
			"then writes config.yaml, keeping its comments. On a terminal it is a form; from a pipe it reads\n" +
			"one answer a line; with --non-interactive the flags are the answers. Afterwards it offers to\n" +
			"connect a chat platform and to choose the toolsets.\n\n" +
			"Run again, it changes only what is asked: hermes setup model, setup gateway, setup tools.",
		Example: "  hermes setup\n" +
			"  hermes setup --non-interactive --provider openrouter --api-key \"$KEY\" --model anthropic/claude-sonnet-4.5\n" +
			"  hermes setup --non-interactive --provider custom --base-url http://127.0.0.1:8080/v1 --model qwen3\n" +
			"  hermes setup model\n" +
			"  hermes setup tools --disable web,vision",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runSetup(cmd.Context(), e, f, true)
		},
	}
	addSetupModelFlags(c, f)
	mf := &setupModelFlags{}
	model := &cobra.Command{
		Use:   "model",
		Short: "Choose the provider, key and model again (the rest of the setup stays)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runSetup(cmd.Context(), e, mf, false)
		},
	}
	addSetupModelFlags(model, mf)
	c.AddCommand(model, newSetupGatewayCmd(e), newSetupToolsCmd(e))
	return c
}

// setupResult is what hermes setup wrote, for --json.
type setupResult struct {
	OK       bool     `json:"ok"`
	Provider string   `json:"provider"`
	Model    string   `json:"model"`
	BaseURL  string   `json:"base_url"`
	KeyVar   string   `json:"key_var,omitempty"`
	Config   string   `json:"config"`
	Env      string   `json:"env,omitempty"`
	Changed  []string `json:"changed"`
	Reply    string   `json:"reply"`
}

func runSetup(ctx context.Context, e *env, f *setupModelFlags, full bool) error {
	if ctx == nil {
		ctx = context.Background()
	}
	cfg, err := loadForEdit(e)
	if err != nil {
		return err
	}
	var p prompter
	if !f.nonInteractive {
		p = newPrompter(e)
	}
	res, err := setupModel(ctx, e, p, f, cfg)
	if err != nil {
		return err
	}
	if f.json {
		b, _ := json.MarshalIndent(res, "", "  ")
		fmt.Fprintln(e.stdout, string(b))
	} else {
		if res.Env != "" {
			fmt.Fprintf(e.stdout, "Wrote %s to %s (readable by you only).\n", res.KeyVar, res.Env)
		}
		fmt.Fprintf(e.stdout, "Wrote %s to %s.\n", strings.Join(res.Changed, ", "), res.Config)
		fmt.Fprintf(e.stdout, "%s answered the test call. Try it:\n  hermes -z \"hello\"\n  hermes chat\n", res.Provider+"/"+res.Model)
	}
	if !full || p == nil {
		return nil
	}
	for {
		i, err := p.choose("Anything else?", []option{
			{"done", "finish the setup"},
			{"gateway", "connect a chat platform (Telegram, Slack, Discord, ...)"},
			{"tools", "turn toolsets on or off"},
		}, 0)
		if err != nil || i == 0 {
			return nil
		}
		if i == 1 {
			err = runSetupGateway(e, "", p)
		} else {
			err = runSetupTools(e, p, nil, nil)
		}
		if err != nil {
			e.warn(err)
		}
	}
}

// setupModel asks (or takes from f) the provider, key and model, lists
// the models, proves the choice with a test call, and writes .env and
// config.yaml only then.
func setupModel(ctx context.Context, e *env, p prompter, f *setupModelFlags, cfg *config.Config) (*setupResult, error) {
	getenv, err := homeEnv(e, cfg.Home)
	if err != nil {
		return nil, &exitError{code: exitFailed, err: err}
	}
	id, baseURL := normalizeProvider(f.provider), strings.TrimSpace(f.baseURL)
	found := false // a server running on this machine, which takes no key
	if id == "" && baseURL != "" {
		id = "custom"
	}
	if id == "" {
		if p == nil {
			return nil, &exitError{code: exitUsage, err: errors.New("--provider (or --base-url) is required with --non-interactive")}
		}
		if id, baseURL, found, err = askProvider(ctx, p, cfg, getenv); err != nil {
			return nil, &exitError{code: exitFailed, err: err}
		}
	}
	spec, builtin := provider.Lookup(id)
	if _, own := cfg.Providers[id]; !builtin && !own {
		return nil, &exitError{code: exitUsage, err: fmt.Errorf("unknown provider %q: use one of %s, or describe it under providers.%s", id, providerIDs(), id)}
	}
	if baseURL == "" && p != nil && (id == "custom" || !builtin) {
		def := firstOf(cfg.Providers[id].BaseURL, sameProvider(cfg, id, cfg.BaseURL), "http://127.0.0.1:8080/v1")
		if baseURL, err = p.input("Base URL of the server (OpenAI-compatible, ending in /v1)", def); err != nil {
			return nil, &exitError{code: exitFailed, err: err}
		}
	}
	if baseURL == "" {
		baseURL = firstOf(sameProvider(cfg, id, cfg.BaseURL), cfg.Providers[id].BaseURL, spec.BaseURL)
	}
	if baseURL == "" {
		return nil, &exitError{code: exitUsage, err: fmt.Errorf("provider %q needs a base URL: --base-url URL", id)}
	}

	keyVar, setKeyEnv := keyVariable(cfg, id)
	have, haveVar := existingKey(cfg, getenv, id)
	key := strings.TrimSpace(f.apiKey)
	needKey := !spec.KeyOptional && builtin
	if key == "" && p != nil && !spec.Local && !found {
		q := "API key for " + id + " (input hidden)"
		switch {
		case have != "":
			q = fmt.Sprintf("API key for %s (Enter keeps the one in %s)", id, haveVar)
		case !needKey:
			q = "API key for " + id + " (input hidden; Enter for none)"
		}
		for range attempts {
			if key, err = p.secret(q); err != nil {
				return nil, &exitError{code: exitFailed, err: err}
			}
			if key = strings.TrimSpace(key); key != "" || have != "" || !needKey {
				break
			}
			p.note("A key is needed for " + id + ".")
		}
	}
	if key == "" && have == "" && needKey {
		return nil, &exitError{code: exitUsage, err: fmt.Errorf("no API key for %s: pass --api-key KEY (it goes to %s)", id, filepath.Join(cfg.Home, ".env"))}
	}

	ep, err := endpointFor(ctx, cfg, getenv, id, baseURL, "", firstOf(key, have), f.apiMode)
	if err != nil {
		return nil, &exitError{code: exitUsage, err: err}
	}
	if p != nil {
		p.note(fmt.Sprintf("Asking %s at %s for its models...", id, ep.BaseURL))
	}
	models, listErr := provider.EndpointModels(ctx, ep)
	if refused(listErr) {
		return nil, &exitError{code: exitFailed, err: fmt.Errorf("%s refused the key (listing its models: %v); nothing was written", id, listErr)}
	}
	model := strings.TrimSpace(f.model)
	current := sameProvider(cfg, id, cfg.Model.Name)
	switch {
	case model != "" && listErr == nil && len(models) > 0 && !offered(models, model):
		return nil, &exitError{code: exitUsage, err: fmt.Errorf("%s does not offer model %q (it offers %s); nothing was written", id, model, listFirst(models, 20))}
	case model != "":
	case p == nil && listErr == nil && len(models) > 0:
		model = models[0]
		for _, m := range []string{current, spec.DefaultModel} {
			if m != "" && offered(models, m) {
				model = m
				break
			}
		}
	case p == nil:
		model = firstOf(current, spec.DefaultModel)
		if model == "" {
			return nil, &exitError{code: exitUsage, err: fmt.Errorf("--model is required: %s did not list its models (%v)", id, listErr)}
		}
	case listErr == nil && len(models) > 0:
		opts := make([]option, len(models))
		def := 0
		for i, m := range models {
			opts[i] = option{name: m}
			if m == current || current == "" && m == spec.DefaultModel {
				def = i
			}
		}
		i, err := p.choose(fmt.Sprintf("Model (%d offered by %s)", len(models), id), opts, def)
		if err != nil {
			return nil, &exitError{code: exitFailed, err: err}
		}
		model = models[i]
	default:
		if listErr != nil {
			p.note(fmt.Sprintf("%s did not list its models: %v", id, listErr))
		}
		if model, err = p.input("Model name", firstOf(current, spec.DefaultModel)); err != nil || model == "" {
			return nil, &exitError{code: exitFailed, err: cmpErr(err, errors.New("no model named; nothing was written"))}
		}
	}
	ep.Model = model
	if p != nil {
		p.note(fmt.Sprintf("Checking %s with one small request...", ep))
	}
	reply, err := testCall(ctx, ep)
	if err != nil {
		return nil, &exitError{code: exitFailed, err: fmt.Errorf("%w\nNothing was written.", err)}
	}
	if p != nil {
		p.note(fmt.Sprintf("%s answered: %q", ep, oneLine(reply, 60)))
	}

	// Write: config.yaml is edited in memory and validated first, so a
	// refusal leaves both files as they were.
	cfgPath := filepath.Join(cfg.Home, "config.yaml")
	before, err := os.ReadFile(cfgPath)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, &exitError{code: exitFailed, err: err}
	}
	changes := modelChanges(before, id, baseURL, spec.BaseURL, model, f.apiMode)
	writeKey := key != "" && key != have
	if writeKey && setKeyEnv {
		changes = append(changes, config.Change{Key: "providers." + id + ".key_env", Value: keyVar})
	}
	if writeKey && cfg.APIKey != "" {
		changes = append(changes, config.Change{Key: "api_key", Unset: true}) // it would win over .env
	}
	if _, err := config.EditKeys(before, cfgPath, changes...); err != nil {
		return nil, &exitError{code: exitFailed, err: fmt.Errorf("%w\nNothing was written.", err)}
	}
	res := &setupResult{OK: true, Provider: id, Model: model, BaseURL: ep.BaseURL, Config: cfgPath, Reply: reply}
	if writeKey {
		res.Env, res.KeyVar = filepath.Join(cfg.Home, ".env"), keyVar
		if err := config.SetDotEnv(res.Env, map[string]string{keyVar: key}); err != nil {
			return nil, &exitError{code: exitFailed, err: err}
		}
		if v := e.getenv(keyVar); v != "" && v != key {
			e.warn(fmt.Sprintf("%s is set in the environment to another key, which wins over %s", keyVar, res.Env))
		}
	}
	if err := config.SetKeys(cfgPath, changes...); err != nil {
		return nil, &exitError{code: exitFailed, err: err}
	}
	for _, c := range changes {
		if !c.Unset {
			res.Changed = append(res.Changed, c.Key)
		}
	}
	return res, nil
}

// modelChanges are the edits of config.yaml that put the primary model
// on provider id: into model: when it is a mapping (model.default,
// model.provider, model.base_url), else model: NAME with the top-level
// provider and base_url; the keys that would override them go. The
// base URL is written only when it is not the provider's usual one.
func modelChanges(b []byte, id, baseURL, usualURL, model, apiMode string) []config.Change {
	var doc map[string]any
	_ = yaml.Unmarshal(b, &doc)
	m, mapping := doc["model"].(map[string]any)
	var out []config.Change
	set := func(k, v string) { out = append(out, config.Change{Key: k, Value: v}) }
	unset := func(in map[string]any, prefix, k string) {
		if _, ok := in[k]; ok {
			out = append(out, config.Change{Key: prefix + k, Unset: true})
		}
	}
	prefix := ""
	if mapping {
		prefix = "model."
		set("model.default", model)
		unset(m, prefix, "name")
		unset(doc, "", "provider")
		unset(doc, "", "base_url")
		if apiMode != "" {
			unset(doc, "", "api_mode")
		}
	} else {
		set("model", model)
		m = doc
	}
	set(prefix+"provider", id)
	if strings.TrimRight(baseURL, "/") != strings.TrimRight(usualURL, "/") {
		set(prefix+"base_url", baseURL)
	} else {
		unset(m, prefix, "base_url")
	}
	if apiMode != "" {
		set(prefix+"api_mode", apiMode)
	} else if cur, _ := m["provider"].(string); cur != "" && normalizeProvider(cur) != id {
		unset(m, prefix, "api_mode") // the old provider's wire format
		if mapping {
			unset(doc, "", "api_mode")
		}
	}
	return out
}

// askProvider offers the servers found on this machine first, then the
// providers hermes knows, and returns the one picked with its base URL
// when it was found running.
func askProvider(ctx context.Context, p prompter, cfg *config.Config, getenv func(string) string) (id, baseURL string, local bool, err error) {
	p.note("Looking for model servers on this machine...")
	found, err := provider.Resolver{Getenv: getenv}.FindLocalServers(ctx)
	if err != nil {
		p.note(err.Error())
	}
	type choice struct{ id, url string }
	var opts []option
	var picks []choice
	def := -1
	if len(found) > 0 {
		def = 0 // a server already running is the first thing to offer
	}
	for _, f := range found {
		opts = append(opts, option{f.Server.Provider, fmt.Sprintf("%s running at %s, %d models", f.Server.Name, f.Server.BaseURL, len(f.Models))})
		picks = append(picks, choice{f.Server.Provider, f.Server.BaseURL})
	}
	if len(found) == 0 {
		p.note("None found (Ollama, LM Studio, llama.cpp and vLLM are looked for on their usual ports).")
	}
	for _, s := range provider.Providers() {
		if s.Local && slices.ContainsFunc(found, func(f provider.Found) bool { return f.Server.Provider == s.ID }) {
			continue
		}
		detail := ""
		switch {
		case s.ID == "custom":
			detail = "any OpenAI-compatible server, by its base URL"
		case s.Local:
			detail = "not answering at " + s.BaseURL + " now"
		default:
			if _, n := existingKey(cfg, getenv, s.ID); n != "" {
				detail = "key found in " + n
				if def < 0 && len(found) == 0 {
					def = len(opts)
				}
			} else {
				detail = "needs an API key"
			}
		}
		opts = append(opts, option{s.ID, detail})
		picks = append(picks, choice{s.ID, ""})
	}
	for _, id := range sortedProviderKeys(cfg) {
		if _, builtin := provider.Lookup(id); !builtin {
			opts = append(opts, option{id, "yours, under providers: in config.yaml, at " + firstOf(cfg.Providers[id].BaseURL, "(no base_url)")})
			picks = append(picks, choice{id, ""})
		}
	}
	for i, c := range picks {
		if cfg.Provider != "" && c.id == normalizeProvider(cfg.Provider) {
			def = i
			break
		}
	}
	i, err := p.choose("Provider", opts, max(def, 0))
	if err != nil {
		return "", "", false, err
	}
	return picks[i].id, picks[i].url, picks[i].url != "", nil
}

// normalizeProvider is a provider id as Lookup knows it.
func normalizeProvider(id string) string {
	id = strings.ToLower(strings.TrimSpace(id))
	if s, ok := provider.Lookup(id); ok {
		return s.ID
	}
	return id
}

func providerIDs() string {
	var ids []string
	for _, s := range provider.Providers() {
		ids = append(ids, s.ID)
	}
	return strings.Join(ids, ", ")
}

// sameProvider is v when cfg's provider is id, else "": a model or base
// URL of another provider is no default for this one.
func sameProvider(cfg *config.Config, id, v string) string {
	if normalizeProvider(cfg.Provider) == id {
		return v
	}
	return ""
}

func firstOf(vs ...string) string {
	for _, v := range vs {
		if strings.TrimSpace(v) != "" {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

func cmpErr(errs ...error) error {
	for _, e := range errs {
		if e != nil {
			return e
		}
	}
	return nil
}
