package prompt

import (
	"slices"
	"strings"

	"github.com/hermes-go/hermes/llm/modelinfo"
)

const memoryGuidance = "You have persistent memory that is carried across sessions (the memory tool). " +
	"Save durable facts that will matter in every future session: who the user is, their preferences " +
	"and corrections, facts about their environment, standing conventions. Write entries as " +
	"declarative facts, not instructions to yourself (\"User prefers concise answers\", not \"Always " +
	"answer concisely\"). Memory has a hard character budget: when it is full, replace or remove stale " +
	"entries instead of skipping the save. Anything that goes stale within days belongs in session " +
	"history, not in memory."

const sessionSearchGuidance = "When the user refers to something from a past conversation, or you suspect " +
	"relevant context exists in earlier sessions, use session_search to recall it before asking them " +
	"to repeat themselves."

const todoGuidance = "For work with several steps, keep a task list with the todo tool: write it when you " +
	"start, keep exactly one item in_progress, and mark items completed as soon as they are done."

const toolUseEnforcement = "You MUST use your tools to take action. Do not describe what you would do, " +
	"and never claim to have done something (run a command, edited a file, saved a memory) without " +
	"calling the tool that does it. When you need information from files, commands or the web, call " +
	"the tool instead of guessing."

// guidance returns the tool-aware guidance for the offered tools.
func (b Builder) guidance() string {
	var parts []string
	has := func(name string) bool { return slices.Contains(b.ToolNames, name) }
	if has("memory") {
		parts = append(parts, memoryGuidance)
	}
	if has("session_search") {
		parts = append(parts, sessionSearchGuidance)
	}
	if has("todo") {
		parts = append(parts, todoGuidance)
	}
	// Families that, without an explicit rule, often narrate actions
	// instead of calling tools get one.
	if len(b.ToolNames) > 0 && modelinfo.Lookup(b.Model).ToolUseGuidance {
		parts = append(parts, toolUseEnforcement)
	}
	return strings.Join(parts, "\n\n")
}
