package agent

import (
	"errors"

	"github.com/hermes-go/hermes/llm"
)

// SwitchSession moves the agent to another session: a new one (history
// nil) or a stored one being resumed, with its history and the system
// prompt to reuse ("" builds a new one on the next turn). It may not be
// called during a turn (ErrBusy).
func (a *Agent) SwitchSession(meta SessionMeta, history []llm.Message, systemPrompt string) error {
	if meta.ID == "" {
		return errors.New("agent: switch session: no session id")
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.running {
		return ErrBusy
	}
	a.session = meta
	a.sessionReady = false
	a.history = llm.CloneMessages(history)
	a.systemPrompt = systemPrompt
	a.lastFailure = ""
	return nil
}

// Busy reports whether a turn (or a manual compression, or a user's tool
// call) is running.
func (a *Agent) Busy() bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.running
}
