package tui

import (
	"sync/atomic"

	tea "charm.land/bubbletea/v2"

	"github.com/hermes-go/hermes/app"
	"github.com/hermes-go/hermes/internal/slash"
	"github.com/hermes-go/hermes/llm"
)

// host is the slash commands' view of the UI. Its methods run on the
// command's goroutine and reach the model as messages.
type host struct {
	rt   *app.Runtime
	send func(tea.Msg)
	busy *atomic.Bool
}

var _ slash.Host = (*host)(nil)

func (h *host) Runtime() *app.Runtime              { return h.rt }
func (h *host) Print(kind slash.Kind, text string) { h.send(printMsg{kind, text}) }
func (h *host) Send(message string)                { h.send(submitMsg{message}) }
func (h *host) Busy() bool                         { return h.busy.Load() }
func (h *host) Reset(history []llm.Message)        { h.send(resetMsg{history}) }
func (h *host) Exit()                              { h.send(exitMsg{}) }

func (h *host) Interrupt() bool {
	if !h.busy.Load() {
		return false
	}
	h.rt.Agent().Interrupt()
	return true
}
