package app

import (
	"context"

	"github.com/hermes-go/hermes/provider"
)

// OfferedModels lists, as ModelID names them, the models a conversation
// can be put on: Models (the chain and the auxiliary tasks' models),
// then what the primary endpoint's provider offers at /models, each
// once. When the listing fails, the error comes with Models alone.
func (rt *Runtime) OfferedModels(ctx context.Context) ([]string, error) {
	out := rt.Models()
	if len(rt.entries) == 0 {
		return out, nil
	}
	primary := rt.entries[0]
	ids, err := provider.EndpointModels(ctx, primary)
	for _, id := range ids {
		m := primary.Provider + ":" + id
		if !containsModel(out, m) {
			out = append(out, m)
		}
	}
	return out, err
}

func containsModel(list []string, m string) bool {
	for _, x := range list {
		if x == m {
			return true
		}
	}
	return false
}
