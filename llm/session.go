package llm

// SessionMeta identifies the conversation a turn belongs to. The agent
// fills it; a store (package session) records it. It lives here, beside
// Message, so that the loop and the store share it without one importing
// the other.
type SessionMeta struct {
	ID string
	// Source is where the session came from: cli, api_server, acp,
	// subagent, batch, ...
	Source string
	// ParentID is the session this one continues (a compression) or was
	// spawned from (a subagent).
	ParentID string
	// Model and Provider are what the session was started with.
	Model    string
	Provider string
	// Cwd is the working directory (workspace) the session runs in.
	Cwd string
}

// PendingWrites are the small writes an agent holds back until the next
// message it stores, for a store that writes them with that message in
// one transaction (agent.PendingStore): a turn's session record, system
// prompt and usage cost no commits of their own.
type PendingWrites struct {
	// Session is recorded, unless it exists, before the message.
	Session *SessionMeta
	// SystemPrompt, when not empty, is the session's system prompt.
	SystemPrompt string
	// Usage and APICalls are added to the session's counters.
	Usage    Usage
	APICalls int
}

// Empty reports whether nothing is pending.
func (p PendingWrites) Empty() bool {
	return p.Session == nil && p.SystemPrompt == "" && p.APICalls == 0 && p.Usage == (Usage{})
}
