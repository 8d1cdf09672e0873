package agent

import "github.com/hermes-go/hermes/llm"

// ModelChoice is a model to switch to: the client that reaches it (a
// provider chain with its fallbacks, usually) and what it is.
type ModelChoice struct {
	Client   llm.Client
	Model    string
	Provider string
	APIMode  llm.APIMode
	// ContextLength is the new model's context window (0: unknown).
	ContextLength int
}

// SetModel switches model for the next turn: a running turn keeps the
// model it started with. The system prompt is rebuilt for the new model
// (it names the model), so the provider's prompt cache starts over.
// Safe from any goroutine.
func (a *Agent) SetModel(c ModelChoice) {
	a.mu.Lock()
	a.nextModel = &c
	a.mu.Unlock()
}

// PendingModel reports the model SetModel chose while it waits for the
// next turn.
func (a *Agent) PendingModel() (model, provider string, ok bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.nextModel == nil {
		return "", "", false
	}
	return a.nextModel.Model, a.nextModel.Provider, true
}

// applyNextModel installs a pending model choice; a.mu is held and no
// turn runs yet.
func (a *Agent) applyNextModel() {
	c := a.nextModel
	if c == nil {
		return
	}
	a.nextModel = nil
	a.cfg.Client, a.cfg.Model, a.cfg.Provider, a.cfg.APIMode = c.Client, c.Model, c.Provider, c.APIMode
	if c.ContextLength > 0 {
		a.contextLength = c.ContextLength
	}
	a.systemPrompt = ""
	a.session.Model, a.session.Provider = c.Model, c.Provider
}
