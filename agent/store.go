package agent

import (
	"context"

	"github.com/hermes-go/hermes/llm"
)

// SessionMeta describes the session a Store records.
type SessionMeta = llm.SessionMeta

// Store persists a session incrementally: the user message before the
// model call, the assistant tool-call message before its tools run, each
// tool result as it is appended, usage after every call, the final answer.
// Its errors are reported as warnings; the turn goes on. *session.Store
// implements it (and SessionEnder and SessionContinuer).
type Store interface {
	// EnsureSession records meta unless the session exists (a resume).
	EnsureSession(ctx context.Context, meta SessionMeta) error
	AppendMessage(ctx context.Context, sessionID string, m llm.Message) error
	AddUsage(ctx context.Context, sessionID string, u llm.Usage, apiCalls int) error
	SetSystemPrompt(ctx context.Context, sessionID, prompt string) error
}

// PendingStore is implemented by stores that write a message together
// with the writes pending before it (the session's record, its system
// prompt, usage), all or nothing. With such a store the agent holds those
// back until the next message: a turn of three tool rounds makes eight
// commits, not thirteen. Whatever is still pending when a turn ends is
// written then, through Store. *session.Store implements it.
type PendingStore interface {
	AppendMessageWith(ctx context.Context, sessionID string, m llm.Message, p llm.PendingWrites) error
}

// SessionEnder is implemented by stores that record why a session ended
// (a compression continues it in a child session).
type SessionEnder interface {
	EndSession(ctx context.Context, sessionID, reason string) error
}

// SessionContinuer is implemented by stores that record a compression's
// continuation atomically: the child session, its messages and the end of
// the parent, all or nothing, so a crash leaves either the parent as it
// was or the complete child. The agent uses it when the Store has it, and
// otherwise EnsureSession, AppendMessage and EndSession one after another.
// *session.Store implements it.
type SessionContinuer interface {
	ContinueSession(ctx context.Context, parentID, reason string, child SessionMeta, msgs []llm.Message) error
}

// Compressor shrinks a history that nears the context window.
// *compress.Compressor implements it.
type Compressor interface {
	// ShouldCompress reports whether a request of tokens needs compressing.
	ShouldCompress(tokens, contextLength int) bool
	// Compress summarises the middle of msgs (no system message) and
	// returns the new history. On error the history must be left as it was.
	Compress(ctx context.Context, msgs []llm.Message, focus string) ([]llm.Message, error)
	// EstimateTokens estimates the size of a request.
	EstimateTokens(msgs []llm.Message, tools []llm.ToolDef) int
}
