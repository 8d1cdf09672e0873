package tui

import (
	"sync"

	tea "charm.land/bubbletea/v2"

	"github.com/hermes-go/hermes/agent"
)

// feed carries the agent's events to the UI: the observer appends them
// and wakes the program once; the program drains everything queued at
// each wake. A burst of deltas costs one message, not one per delta.
type feed struct {
	mu      sync.Mutex
	events  []agent.Event
	pending bool
	send    func(tea.Msg)
}

// eventsMsg wakes the program: events wait in the feed.
type eventsMsg struct{}

// observe is the runtime observer (agent.Observer).
func (f *feed) observe(e agent.Event) {
	f.mu.Lock()
	f.events = append(f.events, e)
	wake := !f.pending && f.send != nil
	f.pending = true
	f.mu.Unlock()
	if wake {
		f.send(eventsMsg{})
	}
}

// drain takes the events queued so far.
func (f *feed) drain() []agent.Event {
	f.mu.Lock()
	defer f.mu.Unlock()
	ev := f.events
	f.events, f.pending = nil, false
	return ev
}
