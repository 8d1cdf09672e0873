package agent

// Router is implemented by clients that may switch model within a turn
// (provider.Chain, the fallback chain). The router owns the fallback
// state; the agent asks it. It calls ResetTurn at the start of every turn
// (fallback is turn-scoped) and Active for the model a result names. A
// router that rewrites the system prompt for a fallback model does so in
// the requests it sends; the agent always hands it the primary's prompt.
type Router interface {
	// ResetTurn returns to the primary when it may, and reports whether
	// it did.
	ResetTurn() bool
	// Active names the model and provider calls go to now.
	Active() (model, provider string)
}

// resetTurnRouting returns to the primary model at the start of a turn.
func (a *Agent) resetTurnRouting() {
	if r, ok := a.cfg.Client.(Router); ok {
		r.ResetTurn()
	}
}
