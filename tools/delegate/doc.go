// Package delegate is the delegate_task tool: the parent agent hands one
// goal, or a batch of goals, to subagents and reads back only their
// reports.
//
// Each child is a fresh agent.Agent: an empty history, its own task id
// (so its own terminal session and working directory), its own iteration
// budget (delegation.max_iterations, default 50, independent of the
// parent's), a focused system prompt holding the goal and context, and the
// parent's tools minus BlockedTools (delegate_task, clarify, memory,
// send_message, execute_code), optionally narrowed to the toolsets the
// call names. A child below delegation.max_spawn_depth gets a
// delegate_task of its own one level deeper; at the limit it never does,
// and a call at the limit is refused with a result saying so.
//
// A batch runs up to delegation.max_concurrent_children children at once
// (default 3), started in task order; the others wait for a slot. The
// result is one report listing every task in task order with its status
// (completed, incomplete, failed, interrupted, timed_out, not_started),
// exit reason, API calls, tokens, duration, and its answer or, when it did
// not complete, whatever it produced: its last text and its last tool
// results. A child never vanishes: whatever happens to it, the parent reads
// a line about it (upstream #45496, #93701). A child that completed just as
// its timeout fired is reported completed, not timed out.
//
// Children's events reach the parent's Observer labelled with AgentID
// "<parent>/<n>" (n counts the children this tool started, from 1; the top
// agent's ID is "", so its children are "/1", "/2", ...) and the parent's
// Depth+1; the tool adds a status event when a child starts and ends.
//
// Approvals: children run with Options.ChildApprover. Nobody can answer an
// approval prompt inside a subagent, so it must never ask a human: it
// denies dangerous commands, or approves the non-hardline ones when
// delegation.subagent_auto_approve is set (hardline commands stay
// refused). The caller builds it from its approval policy. Without one,
// children get DenyAll: every command a Commander tool would run is
// refused, which is safe but makes the terminal useless to them.
//
// Interrupts: the tool runs its children under the context of the call,
// which the parent's Interrupt cancels; each child's Interrupt is called
// too, and the report says which children were interrupted and what they
// had done.
//
// Sessions: with Options.Store set, each child is recorded as a session of
// source "subagent" whose parent_session_id is the parent's session.
//
// Concurrency: a Tool is safe for concurrent calls. The Observer is called
// from every running child's goroutines at once.
package delegate
