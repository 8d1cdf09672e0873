package llm

import "github.com/hermes-go/hermes/llm/modelinfo"

// SupportsVision reports whether a model is known to accept images, from
// its name (see modelinfo). A model the table does not know is taken as
// text only; config model.vision (or the embedder) says otherwise.
func SupportsVision(model string) bool { return modelinfo.Lookup(model).Vision }
