// Package slash is the one registry of slash commands (/help, /new,
// /model, ...) shared by every interactive surface: the terminal UI, the
// line mode and, later, the messaging gateway. A command is written once,
// as a Command whose Run acts on a Host: the session operations of the
// conversation the surface shows (Host.Conversation, an
// *app.Conversation), what its conversations share (Host.Runtime), and
// what only the surface can do (show text, start a turn, clear the
// screen, quit). /new, /clear and /resume move the surface to another
// conversation: the next one is opened first (Host.Open), so a session
// that cannot be opened leaves the current one in place; the current one
// is then ended and closed. The next conversation keeps the model /model
// chose and the yolo setting.
//
// Lines: a line whose first word starts with "/" is a command and never
// reaches the model, unless that word holds another "/" (a path such as
// /etc/hosts is text). Names match exactly, by alias, or by a unique
// prefix (/mod is /model); an ambiguous prefix lists its candidates; an
// unknown name suggests the nearest command (edit distance). /help is
// generated from the registry.
//
// What only some surfaces can do is optional: a Host that is also a
// Queuer holds messages until the running turn ends (/queue), a Picker
// lets the user choose from a list (/resume and /sessions without an
// argument), a Backgrounder runs background conversations (/bg). A
// command that needs one says it is "not available here" where the host
// lacks it. /steer hands text to the running turn (app.Conversation.Steer:
// read after its next tool call); with no turn running it is sent as a
// message. /btw asks the model a side question over a copy of the
// history and stores nothing (app.Conversation.Aside). /branch continues
// in a fork of the session (app.ConversationOptions.Fork); /diff compares
// the workspace with how it was when the session began
// (app.Conversation.WorkspaceDiff).
//
// Other packages add commands at run time with Register (an MCP client's
// /reload-mcp, one command per installed skill) and remove them with
// Unregister. A Registry is safe for concurrent use; a command's Run is
// called on the dispatching goroutine and may block (it runs off the UI's
// event loop), so a Host must be safe to call from any goroutine.
package slash
