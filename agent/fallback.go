package agent

// Router is implemented by clients that may switch provider within a turn
// (the fallback chain). The agent calls ResetTurn at the start of every
// turn: fallback is turn-scoped. It reports whether the router is back
// on its primary.
type Router interface {
	ResetTurn() bool
}

// SwitchModel records that calls now go to model at provider (a fallback
// happened). The system prompt sent from now on carries the new Model:
// and Provider: lines; the stored prompt keeps the primary's. Safe from
// any goroutine.
func (a *Agent) SwitchModel(model, provider string) {
	a.mu.Lock()
	a.model, a.provider = model, provider
	a.mu.Unlock()
	a.emit(Event{Kind: EventFallback, Text: "switched to " + provider + "/" + model})
}

// resetTurnRouting returns to the primary model at the start of a turn.
func (a *Agent) resetTurnRouting() {
	r, ok := a.cfg.Client.(Router)
	if !ok {
		return
	}
	if r.ResetTurn() {
		a.mu.Lock()
		a.model, a.provider = a.cfg.Model, a.cfg.Provider
		a.mu.Unlock()
	}
}

// sentSystemPrompt is the system prompt for the active model. Callers hold a.mu.
func (a *Agent) sentSystemPrompt() string {
	p := a.systemPrompt
	if a.cfg.RewritePrompt != nil && (a.model != a.cfg.Model || a.provider != a.cfg.Provider) {
		p = a.cfg.RewritePrompt(p, a.model, a.provider)
	}
	return p
}
