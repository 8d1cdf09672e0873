// Package tui is the interactive terminal UI of hermes, on Bubble Tea:
// the conversation streamed as rendered markdown, reasoning and tool
// calls as they happen, a status line, a multi-line input with history,
// approval and clarify prompts as keyboard-driven modals, and the slash
// commands of package slash.
//
// It runs on a conversation of an assembled runtime (package app) and
// only consumes its ordered event stream (Conversation.Observe); it never
// drives the loop itself beyond Run and Interrupt. /new, /clear and
// /resume move it to another conversation, opened with the same observer
// (Options.Open supplies the surface's approvals and rules); Run returns
// the one it ended on. The slash host also queues (/queue: the line
// under the conversation shows what waits), picks (a list modal for
// /resume and /sessions: arrows, Enter, Esc, typing filters) and runs
// background tasks (/bg: their answers arrive as notes; quitting
// interrupts them). A /steer the turn ends before reading is sent as the
// next message. On quit, a running turn is interrupted and waited
// for (Conversation.Wait, five seconds at most).
//
// Rendering stays cheap on long answers: events are appended as they
// arrive, but markdown is rendered by blocks: a finished paragraph once,
// the paragraph still streaming at most every 50 ms; a finished message
// is rendered once per terminal width.
//
// Concurrency: the Model is Bubble Tea's: Update and View run on the
// program's goroutine. Agent events, slash commands, shell commands and
// approval or clarify questions arrive from other goroutines as messages
// (Program.Send); nothing else touches the Model.
package tui
