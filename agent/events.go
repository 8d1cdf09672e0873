package agent

import (
	"sync"
	"time"

	"github.com/hermes-go/hermes/llm"
	"github.com/hermes-go/hermes/tool"
)

// EventKind says what an Event reports.
type EventKind string

// Event kinds.
const (
	EventTextDelta      EventKind = "text_delta"      // Text: visible text streamed by the model
	EventReasoningDelta EventKind = "reasoning_delta" // Text: reasoning streamed by the model
	EventToolGenerating EventKind = "tool_generating" // Tool.Name: the model began writing a tool call
	EventToolStarted    EventKind = "tool_started"    // Tool: a call is about to run
	EventToolFinished   EventKind = "tool_finished"   // Tool: a call finished (Result, Status, Duration)
	EventStatus         EventKind = "status"          // Text: lifecycle status (retry waits, continuations)
	EventWarning        EventKind = "warning"         // Text: something went wrong but the turn goes on
	EventStep           EventKind = "step"            // Step: an iteration begins (before its model call)
	EventBudgetWarning  EventKind = "budget_warning"  // Text: the pressure text added to the newest tool result
	EventRepair         EventKind = "repair"          // Repairs: the API copy of the history was repaired
	EventFallback       EventKind = "fallback"        // Text: the provider chain switched model
	EventCompression    EventKind = "compression"     // Text: the context was compressed
	EventAssistant      EventKind = "assistant"       // Message: an assistant message entered the history
	EventRetry          EventKind = "retry"           // Text: the model call is tried again (Restart: discard its streamed text)
	EventSteer          EventKind = "steer"           // Text: a text given to Steer was added to the newest tool result
	EventDone           EventKind = "done"            // Result: the turn ended (Stream's last event)
)

// Event is one progress report. Only the fields its Kind names are set.
type Event struct {
	Kind    EventKind
	Time    time.Time
	Text    string
	Step    int
	Tool    *ToolEvent
	Repairs llm.Repairs
	Message *llm.Message
	// Restart, on EventRetry and EventFallback, says that the text and
	// reasoning streamed since the last step belong to an abandoned
	// attempt: a surface showing them clears them, the answer streams
	// again from its start.
	Restart bool
	// Result is the turn's outcome, on EventDone.
	Result *Result
	// AgentID names the agent that emitted the event ("" for the top
	// agent; subagents are "<parent>/<n>") and Depth its nesting.
	AgentID string
	Depth   int
}

// ToolEvent describes a tool call in a tool event.
type ToolEvent struct {
	CallID   string
	Name     string
	Args     string
	Result   string
	IsError  bool
	Status   tool.Status
	Duration time.Duration
}

// Observer receives events, in the order they happened, from one
// goroutine at a time: the agent queues what the loop and its tools
// report and delivers it in order, so a slow observer delays the display,
// never the loop. Run returns only after every event of its turn was
// delivered.
type Observer func(Event)

// EventRelay is implemented by agent-level tools that run agents of their
// own (delegate_task). New hands such a tool the agent's event sink, so
// that the events of its agents reach this agent's observer in order,
// from the same goroutine as the rest.
type EventRelay interface {
	RelayEvents(emit Observer)
}

// eventQueue delivers events to one observer in order, from a goroutine
// of its own, without ever blocking the goroutine that emits.
type eventQueue struct {
	deliver Observer

	mu      sync.Mutex
	pending []Event
	running bool // a delivery goroutine is draining pending
	idle    *sync.Cond
}

func newEventQueue(deliver Observer) *eventQueue {
	q := &eventQueue{deliver: deliver}
	q.idle = sync.NewCond(&q.mu)
	return q
}

// push queues e and starts a delivery goroutine when none runs.
func (q *eventQueue) push(e Event) {
	q.mu.Lock()
	q.pending = append(q.pending, e)
	start := !q.running
	q.running = true
	q.mu.Unlock()
	if start {
		go q.drain()
	}
}

func (q *eventQueue) drain() {
	for {
		q.mu.Lock()
		if len(q.pending) == 0 {
			q.running = false
			q.idle.Broadcast()
			q.mu.Unlock()
			return
		}
		batch := q.pending
		q.pending = nil
		q.mu.Unlock()
		for _, e := range batch {
			q.deliver(e)
		}
	}
}

// flush waits until every event pushed so far was delivered. It must not
// be called from the observer itself.
func (q *eventQueue) flush() {
	q.mu.Lock()
	for q.running {
		q.idle.Wait()
	}
	q.mu.Unlock()
}
