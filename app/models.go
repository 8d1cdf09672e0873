package app

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/hermes-go/hermes/provider"
)

// ModelID names an endpoint as model lists show it: "provider:model"
// (which ConversationOptions.Model and SwitchModel take back).
func ModelID(ep provider.Endpoint) string {
	if ep.Provider == "" {
		return ep.Model
	}
	return ep.Provider + ":" + ep.Model
}

// Models lists, as ModelID names them, the models a conversation can be
// put on (ConversationOptions.Model): the primary as it is now, its fallbacks,
// then the auxiliary tasks' models config.yaml names on a provider of
// their own; each once.
func (rt *Runtime) Models() []string {
	entries := rt.entries
	var out []string
	add := func(id string) {
		if !slices.Contains(out, id) {
			out = append(out, id)
		}
	}
	for _, e := range entries {
		add(ModelID(e))
	}
	tasks := make([]string, 0, len(rt.cfg.Auxiliary))
	for t := range rt.cfg.Auxiliary {
		tasks = append(tasks, t)
	}
	slices.Sort(tasks)
	for _, t := range tasks {
		a := rt.cfg.Auxiliary[t]
		p := strings.ToLower(a.Provider)
		if a.Model == "" || a.BaseURL != "" || p == "" || p == "main" || p == "auto" || !rt.isProvider(p) {
			continue // the main provider's, or one only this task can reach
		}
		add(p + ":" + a.Model)
	}
	return out
}

// ResolveModel checks that ref (as ConversationOptions.Model takes it) names a
// model a conversation can be put on, and returns its endpoint without
// its key.
func (rt *Runtime) ResolveModel(ctx context.Context, ref string) (provider.Endpoint, error) {
	entries, err := rt.entriesFor(ctx, ref, rt.entries)
	if err != nil {
		return provider.Endpoint{}, err
	}
	return entries[0].Redacted(), nil
}

// entriesFor is the chain a conversation on model ref goes through, from
// the chain entries: a model of the chain (by ModelID or name) moves to
// its front, the others staying behind it in order; any other model takes
// the primary's place, as SwitchModel does.
func (rt *Runtime) entriesFor(ctx context.Context, ref string, entries []provider.Endpoint) ([]provider.Endpoint, error) {
	ref = strings.TrimSpace(ref)
	if ref == "" {
		return nil, errors.New("model: no model named")
	}
	entries = slices.Clone(entries)
	for i, e := range entries {
		if ModelID(e) == ref || e.Model == ref {
			return append(append([]provider.Endpoint{e}, entries[:i]...), entries[i+1:]...), nil
		}
	}
	ep, err := rt.endpointFor(ctx, ref, entries[0])
	if err != nil {
		return nil, err
	}
	entries[0] = ep
	return entries, nil
}

// endpointFor resolves ref, "name" on cur's provider or "provider:name",
// into an endpoint (the colon of a name such as Ollama's "llama3:8b"
// separates a provider only when the part before it names one).
func (rt *Runtime) endpointFor(ctx context.Context, ref string, cur provider.Endpoint) (provider.Endpoint, error) {
	provID, model := "", ref
	if p, m, ok := strings.Cut(ref, ":"); ok && p != "" && m != "" && rt.isProvider(p) {
		provID, model = p, m
	}
	ep := cur
	ep.Model, ep.ContextLength = model, 0
	if provID != "" && provID != cur.Provider {
		var err error
		ep, err = rt.resolver.Resolve(ctx, provider.Config{Provider: provID, Model: model, Providers: rt.pcfg.Providers})
		if err != nil {
			return provider.Endpoint{}, fmt.Errorf("model %s: %w", ref, err)
		}
	}
	return ep, nil
}

// isProvider reports whether id names a built-in provider or one of
// config.yaml's providers.
func (rt *Runtime) isProvider(id string) bool {
	if _, ok := provider.Lookup(id); ok {
		return true
	}
	_, ok := rt.pcfg.Providers[id]
	return ok
}
