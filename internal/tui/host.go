package tui

import (
	"context"
	"slices"
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
	// queued is the UI's queue as of its last update (/queue, /status).
	queued atomic.Pointer[[]string]
	bg     slash.Background
	picks  atomic.Int64
}

var (
	_ slash.Host         = (*host)(nil)
	_ slash.Queuer       = (*host)(nil)
	_ slash.Picker       = (*host)(nil)
	_ slash.Backgrounder = (*host)(nil)
)

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

// Queue adds message to the UI's queue (sent at once when nothing runs).
func (h *host) Queue(message string) { h.send(queueMsg{message}) }

// Queued is the UI's queue as its last update left it.
func (h *host) Queued() []string {
	if q := h.queued.Load(); q != nil {
		return slices.Clone(*q)
	}
	return nil
}

func (h *host) Background() *slash.Background { return &h.bg }

// Pick shows the picker and waits for the choice.
func (h *host) Pick(ctx context.Context, title string, items []slash.PickItem) (int, error) {
	reply := make(chan int, 1)
	id := h.picks.Add(1)
	h.send(pickMsg{id: id, title: title, items: items, reply: reply})
	select {
	case i := <-reply:
		if i < 0 {
			return -1, slash.ErrPickCancelled
		}
		return i, nil
	case <-ctx.Done():
		h.send(unpickMsg{id})
		return -1, ctx.Err()
	}
}
