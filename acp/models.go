package acp

import (
	"context"
	"fmt"
	"slices"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/hermes-go/hermes/app"
)

// models is the session's model picker: the models the configuration
// names (app.Runtime.Models: the primary, its fallbacks, the auxiliary
// tasks' own), and the one the session's turns go to.
func (s *server) models(se *sess) *sdk.SessionModelState {
	se.mu.Lock()
	cur := se.model
	se.mu.Unlock()
	primary := app.ModelID(s.rt.Endpoint())
	if cur == "" {
		cur = primary
	}
	ids := s.rt.Models()
	if !slices.Contains(ids, cur) {
		ids = append(ids, cur) // one the editor named that the configuration does not
	}
	st := &sdk.SessionModelState{CurrentModelId: sdk.ModelId(cur), AvailableModels: []sdk.ModelInfo{}}
	for _, id := range ids {
		info := sdk.ModelInfo{ModelId: sdk.ModelId(id), Name: id}
		if id == primary {
			info.Description = sdk.Ptr("The configured model (its fallbacks stay behind whichever model is chosen).")
		}
		st.AvailableModels = append(st.AvailableModels, info)
	}
	return st
}

// unstableModels is models in the types of the SDK's unstable methods.
func (s *server) unstableModels(se *sess) *sdk.UnstableSessionModelState {
	st := s.models(se)
	out := &sdk.UnstableSessionModelState{CurrentModelId: sdk.UnstableModelId(st.CurrentModelId), AvailableModels: []sdk.UnstableModelInfo{}}
	for _, m := range st.AvailableModels {
		out.AvailableModels = append(out.AvailableModels, sdk.UnstableModelInfo{ModelId: sdk.UnstableModelId(m.ModelId), Name: m.Name, Description: m.Description})
	}
	return out
}

// UnstableSetSessionModel is session/set_model: the session's next turns
// go to the model named ("provider:model" from the picker, or any model
// "name" or "provider:name" as /model takes it), with the configured
// fallbacks behind it; a turn running now keeps its model. A model that
// cannot be resolved (an unknown provider, no key) is refused at once.
func (s *server) UnstableSetSessionModel(ctx context.Context, p sdk.UnstableSetSessionModelRequest) (sdk.UnstableSetSessionModelResponse, error) {
	se, err := s.session(p.SessionId)
	if err != nil {
		return sdk.UnstableSetSessionModelResponse{}, err
	}
	ep, err := s.rt.ResolveModel(ctx, string(p.ModelId))
	if err != nil {
		return sdk.UnstableSetSessionModelResponse{}, sdk.NewInvalidParams(map[string]any{"error": fmt.Sprintf("model %q: %v", p.ModelId, err)})
	}
	id := app.ModelID(ep)
	if id == app.ModelID(s.rt.Endpoint()) {
		id = "" // back on the runtime's model, following a /model switch of it
	}
	se.mu.Lock()
	se.model = id
	se.mu.Unlock()
	return sdk.UnstableSetSessionModelResponse{}, nil
}
