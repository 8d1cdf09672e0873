// Package todo holds the task list an agent keeps during a session and
// the "todo" tool that edits it.
//
// The tool writes a list of items {id, content, status, parent?}: with
// merge=false the list replaces the current one; with merge=true items
// are updated by id, field by field, and new ids are appended. Calling it
// without todos reads the list. Every call returns the list, its revision
// and a summary by status; the revision increments only when the list
// actually changes. Input is normalised rather than refused: an unknown
// status becomes pending, empty content "(no description)", a missing id
// "?", over-long content is cut at 4,000 characters, the list at 256
// items, and dangling or cyclic parent links are dropped.
//
// The Store marshals to JSON so the integrator can keep it with the
// session (session.Store.SetTodo) and restore it on resume; the tool can
// persist every change through a callback. Reminder renders the active
// items for re-injection after context compression.
//
// Concurrency: a Store is safe for concurrent use. The tool is
// tool.Sequential: two writes in one batch apply in the model's order.
package todo
