package agent

import (
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

// Observer receives events. It is called on the loop's goroutines (tool
// events may come from several at once) and must not block for long.
type Observer func(Event)
