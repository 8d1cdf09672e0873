package tui

import (
	"context"
	"sync/atomic"

	tea "charm.land/bubbletea/v2"

	"github.com/hermes-go/hermes/agent"
	"github.com/hermes-go/hermes/app"
	"github.com/hermes-go/hermes/internal/slash"
	"github.com/hermes-go/hermes/llm"
)

// host is the slash commands' view of the UI. Its methods run on the
// command's goroutine and reach the model as messages; the conversation
// shown is swapped under the model's feet (/new, /resume), so the model
// reads it from here at each use.
type host struct {
	rt      *app.Runtime
	conv    atomic.Pointer[app.Conversation]
	open    func(context.Context, app.ConversationOptions) (*app.Conversation, error)
	bridge  *Bridge
	observe agent.Observer
	send    func(tea.Msg)
	busy    *atomic.Bool
}

var _ slash.Host = (*host)(nil)

func (h *host) Runtime() *app.Runtime              { return h.rt }
func (h *host) Conversation() *app.Conversation    { return h.conv.Load() }
func (h *host) Print(kind slash.Kind, text string) { h.send(printMsg{kind, text}) }
func (h *host) Send(message string)                { h.send(submitMsg{message}) }
func (h *host) Busy() bool                         { return h.busy.Load() }
func (h *host) Reset(history []llm.Message)        { h.send(resetMsg{history}) }
func (h *host) Exit()                              { h.send(exitMsg{}) }

// Open opens the next conversation with the UI's observer, through
// Options.Open (or with the Bridge's questions when there is none).
func (h *host) Open(ctx context.Context, o app.ConversationOptions) (*app.Conversation, error) {
	o.Observer = h.observe
	if h.open != nil {
		return h.open(ctx, o)
	}
	o.Approve, o.Clarify = h.bridge.Approve, h.bridge.Clarify
	return h.rt.Open(ctx, o)
}

func (h *host) Swap(c *app.Conversation) *app.Conversation { return h.conv.Swap(c) }

func (h *host) Interrupt() bool {
	if !h.busy.Load() {
		return false
	}
	h.Conversation().Interrupt()
	return true
}
