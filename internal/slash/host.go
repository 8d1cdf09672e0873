package slash

import (
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
	// Runtime is the runtime the surface runs: the agent, its session and
	// store, the session operations.
	Runtime() *app.Runtime
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
