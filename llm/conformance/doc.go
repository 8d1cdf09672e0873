// Package conformance holds the transport conformance suite: one table of
// scenarios (plain text, tools, thinking, refusals, cuts, provider errors)
// run against every wire format through llm/llmtest, streamed and not.
// It has no code of its own; see conformance_test.go.
package conformance
