// Package compress is the context compressor: when a conversation nears
// its model's context window, the middle of the history is summarised by
// an auxiliary model into one reference-only message, keeping the first
// ProtectFirstN and the last ProtectLastN messages verbatim.
//
// Guarantees of Compress:
//   - an assistant message with tool calls is never separated from its
//     tool results (boundaries move outward to keep a group whole);
//   - the result follows the alternation rules (llm.Sanitize makes no
//     repair on it): the summary takes the role its neighbours allow, or
//     is merged into the first kept message when both roles collide;
//   - the summary is wrapped in the reference-only prefix and the END
//     marker, so the model answers the latest message, not the summary;
//   - the active todo list is re-injected under "[Your active task list
//     was preserved across context compression]";
//   - a failed summary (or BeforeCompress hook) leaves the history
//     unchanged: messages are never dropped without a summary.
//
// The turn-level policy (at most three compressions per turn, a child
// session with parent_session_id, retrying after an overflow) belongs to
// the agent loop; Result.MadeProgress tells it whether a retry is worth it.
//
// Concurrency: a Compressor is read-only after construction and safe for
// concurrent use; its hooks and Summarizer must be too.
package compress
