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
