// Package conformance holds the transport conformance suite: one table of
// scenarios (plain text, tools, thinking, refusals, length cuts, provider
// errors, and the faults: replies that end without their terminator or
// drop mid-way, unknown finish reasons, legacy function calls, tool
// arguments that do not parse, rate-limit reset headers) run against every
// wire format through llm/llmtest, streamed and not, and against the
// in-process llmtest.Client, which must answer as the transports do. Each
// scenario is checked twice: on one call of the transport, and on a whole
// agent.Run over it, so that what the loop makes of a turn does not depend
// on the format it came through. It has no code of its own; see
// conformance_test.go and loop_test.go.
package conformance
