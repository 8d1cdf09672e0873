// Package clarify holds the "clarify" tool: the model asks the user a
// question, optionally with up to four choices, and waits for the answer.
//
// The question goes through a callback supplied by the surface (CLI, TUI,
// ACP, gateway). Without one (a one-shot run, a subagent, an API call
// with nobody to answer) the tool returns at once and tells the model to
// proceed on its best judgement. Cancelling the call's context abandons
// the question.
//
// Concurrency: the tool is tool.Interactive, so it never runs beside
// another call.
package clarify
