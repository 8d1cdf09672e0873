package agent

import (
	"fmt"

	"github.com/hermes-go/hermes/llm"
)

// Texts that close a history an interrupted turn (or a killed process)
// left open. They enter the history and the store, so every later call
// follows the alternation rules without a repair, and the interrupted
// prompt stays visible, marked.
const (
	// InterruptedNote answers a prompt that got no answer. Its message has
	// FinishReason llm.FinishInterrupted.
	InterruptedNote = "[Interrupted: the user stopped this request before it was answered.]"
	// InterruptedToolNote is the result of a tool call that never finished.
	InterruptedToolNote = "[Tool call interrupted: no result was recorded.]"
	// FailedNote answers a prompt whose turn failed before an answer
	// (followed by the exit reason). Its message has FinishReason
	// llm.FinishFailed.
	FailedNote = "[No answer: this request failed"
)

// closeDangling ends the history's open tail: results for tool calls that
// have none, and a marked answer for a prompt that has none: failed when
// the previous turn of this agent failed, interrupted otherwise (a turn
// stopped by the user, or a process that died). A tail of tool results is
// left open: the model continues from it.
func (t *turn) closeDangling() {
	a := t.a
	a.mu.Lock()
	failure := a.lastFailure
	h := a.history
	var missing []llm.ToolCall
	lastUser := len(h) > 0 && h[len(h)-1].Role == llm.RoleUser
	if i := lastToolBatch(h); i >= 0 {
		answered := map[string]bool{}
		for _, m := range h[i+1:] {
			answered[m.ToolCallID] = true
		}
		for _, c := range h[i].ToolCalls {
			if !answered[c.ID] {
				missing = append(missing, c)
			}
		}
	}
	a.mu.Unlock()
	for _, c := range missing {
		t.appendMsg(llm.Message{Role: llm.RoleTool, ToolCallID: c.ID, Name: c.Name, Content: InterruptedToolNote, Time: a.cfg.Now()})
	}
	if lastUser {
		note, reason := InterruptedNote, llm.FinishInterrupted
		if failure != "" {
			note, reason = fmt.Sprintf("%s (%s).]", FailedNote, failure), llm.FinishFailed
		}
		t.appendMsg(llm.Message{Role: llm.RoleAssistant, Content: note, FinishReason: reason, Time: a.cfg.Now()})
	}
}

// lastToolBatch returns the index of the assistant message whose tool
// calls the history ends with (only tool results after it), or -1.
func lastToolBatch(h []llm.Message) int {
	for i := len(h) - 1; i >= 0; i-- {
		switch {
		case h[i].Role == llm.RoleTool:
			continue
		case h[i].Role == llm.RoleAssistant && len(h[i].ToolCalls) > 0:
			return i
		}
		return -1
	}
	return -1
}
