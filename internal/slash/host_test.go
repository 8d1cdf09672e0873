package slash

import (
	"context"
	"strings"
	"sync"

	"github.com/hermes-go/hermes/app"
	"github.com/hermes-go/hermes/llm"
)

// fakeHost records what commands do to the surface.
type fakeHost struct {
	rt   *app.Runtime
	conv *app.Conversation
	busy bool
	// opened counts the conversations Open opened.
	opened int

	mu      sync.Mutex
	printed []string
	kinds   []Kind
	sent    []string
	resets  [][]llm.Message
	exited  bool
	stopped int
}

func (h *fakeHost) Runtime() *app.Runtime { return h.rt }
func (h *fakeHost) Conversation() *app.Conversation {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.conv
}
func (h *fakeHost) Open(ctx context.Context, o app.ConversationOptions) (*app.Conversation, error) {
	c, err := h.rt.Open(ctx, o)
	if err == nil {
		h.mu.Lock()
		h.opened++
		h.mu.Unlock()
	}
	return c, err
}
func (h *fakeHost) Swap(c *app.Conversation) *app.Conversation {
	h.mu.Lock()
	defer h.mu.Unlock()
	old := h.conv
	h.conv = c
	return old
}
func (h *fakeHost) Print(k Kind, s string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.printed, h.kinds = append(h.printed, s), append(h.kinds, k)
}
func (h *fakeHost) Send(m string) { h.sent = append(h.sent, m) }
func (h *fakeHost) Interrupt() bool {
	h.stopped++
	return h.busy
}
func (h *fakeHost) Busy() bool                  { return h.busy }
func (h *fakeHost) Reset(history []llm.Message) { h.resets = append(h.resets, history) }
func (h *fakeHost) Exit()                       { h.exited = true }

func (h *fakeHost) out() string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return strings.Join(h.printed, "\n")
}
