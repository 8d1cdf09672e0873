package agent

import (
	"strings"
)

// steerNote introduces a steered text in the tool result that carries it.
const steerNote = "[The user added while you worked: "

// Steer adds text to the running turn, for the model to read at its next
// call: it is appended to the newest tool result when a round of tool
// calls ends (as upstream Hermes' /steer does), so no user message breaks
// the tool-call sequence any provider expects, and the stored result holds
// what the model was sent. Several steers before one round ends are
// delivered together, in order; each delivery is an EventSteer.
//
// Steer returns false when no turn runs, or the running one is ending
// (its caller then sends the text as the next turn), and for blank text.
// A text accepted but never delivered (the model answered without calling
// tools again, the turn was interrupted or stopped) is handed back in the
// turn's Result.PendingSteer, never dropped. Safe from any goroutine.
func (a *Agent) Steer(text string) bool {
	text = strings.TrimSpace(text)
	if text == "" {
		return false
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if !a.steerable {
		return false
	}
	a.steered = append(a.steered, text)
	return true
}

// closeSteering ends the turn's acceptance of steers and returns those
// not delivered: after it, Steer returns false, so no text is accepted
// that the turn can no longer hand back.
func (a *Agent) closeSteering() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	left := a.steered
	a.steered, a.steerable = nil, false
	return left
}

// withSteers appends every text steered so far to a tool result's
// content, in order, and reports each delivery. The text is masked as
// tool results are, since the result is stored and sent as it is.
func (t *turn) withSteers(content string) string {
	a := t.a
	a.mu.Lock()
	texts := a.steered
	a.steered = nil
	a.mu.Unlock()
	for _, s := range texts {
		if a.cfg.Redact != nil {
			s = a.cfg.Redact(s)
		}
		content = strings.TrimRight(content, "\n") + "\n\n" + steerNote + s + "]"
		a.emit(Event{Kind: EventSteer, Text: s})
	}
	return content
}
