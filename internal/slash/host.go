package slash

import (
	"context"

	"github.com/hermes-go/hermes/app"
	"github.com/hermes-go/hermes/llm"
)

// Kind says how a surface shows a text a command prints.
type Kind int

// Kinds of output.
const (
	Info     Kind = iota // plain text, kept as it is (tables, lists)
	Markdown             // rendered as markdown where the surface can
	Warning              // something to notice
	Error                // something went wrong
)

// Host is the surface a command runs in. Its methods may be called from
// any goroutine.
type Host interface {
	// Runtime is the runtime the surface runs on: the store, the
	// configuration, the MCP servers and skills its conversations share.
	Runtime() *app.Runtime
	// Conversation is the conversation the surface shows now: its
	// session, history and session operations.
	Conversation() *app.Conversation
	// Open opens a conversation the way the surface opens its own: o
	// (the session, model and yolo a command chose) with the surface's
	// approval and clarify callbacks, observers, preloaded skills and
	// rules. It does not show it: Swap does.
	Open(ctx context.Context, o app.ConversationOptions) (*app.Conversation, error)
	// Swap makes c the surface's conversation and returns the one it
	// showed, which the caller ends and closes.
	Swap(c *app.Conversation) (old *app.Conversation)
	// Print shows text to the user.
	Print(kind Kind, text string)
	// Send starts a turn with message once the command has returned, as
	// if the user had typed it (/retry).
	Send(message string)
	// Interrupt stops the running turn; it reports whether one ran.
	Interrupt() bool
	// Busy reports whether a turn is running.
	Busy() bool
	// Reset replaces the conversation shown by history: its last turns
	// (a resumed session, the conversation after an undo); nil leaves an
	// empty screen.
	Reset(history []llm.Message)
	// Exit ends the surface once the command has returned.
	Exit()
}
