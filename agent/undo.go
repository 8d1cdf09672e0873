package agent

import (
	"errors"

	"github.com/hermes-go/hermes/llm"
)

// ErrNothingToUndo is returned by DropLastTurn when the history holds no
// user message.
var ErrNothingToUndo = errors.New("agent: no turn to undo")

// DropLastTurn removes the last exchange from the history: the last user
// message and everything after it (the answer, tool calls and results, an
// interrupted or failed note). It returns what it removed, the user
// message first, so a caller can send that message again (retry). The
// store is the caller's to update. It may not be called during a turn.
func (a *Agent) DropLastTurn() ([]llm.Message, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.running {
		return nil, ErrBusy
	}
	i := len(a.history) - 1
	for i >= 0 && a.history[i].Role != llm.RoleUser {
		i--
	}
	if i < 0 {
		return nil, ErrNothingToUndo
	}
	dropped := llm.CloneMessages(a.history[i:])
	a.history = a.history[:i:i]
	a.lastFailure = ""
	return dropped, nil
}
