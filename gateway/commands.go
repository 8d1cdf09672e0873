package gateway

import (
	"context"
	"fmt"
	"sync"

	"github.com/hermes-go/hermes/app"
	"github.com/hermes-go/hermes/gateway/format"
	"github.com/hermes-go/hermes/internal/slash"
	"github.com/hermes-go/hermes/llm"
	"github.com/hermes-go/hermes/session"
)

// newRegistry is the chat commands: the shared registry without what
// has no meaning in a chat (/exit, /clear, /image: images are sent as
// images) or must not exist here (/yolo), with a /status of its own
// (the chat's stored queue), /approve, /deny and /sethome, and one
// command per installed skill.
func newRegistry(rt *app.Runtime) *slash.Registry {
	r := slash.Builtin()
	for _, n := range []string{"exit", "clear", "yolo", "image", "status"} {
		r.Unregister(n)
	}
	r.MustRegister(
		slash.Command{Name: "status", Summary: "what this chat is doing: its session, model and queue", WhileBusy: true, Run: runStatus},
		slash.Command{Name: "approve", Args: "[session|always]", Summary: "run the command waiting for approval", WhileBusy: true, Run: answeredElsewhere},
		slash.Command{Name: "deny", Summary: "refuse the command waiting for approval", WhileBusy: true, Run: answeredElsewhere},
		slash.Command{Name: "sethome", Summary: "make this chat where cron jobs and webhook runs deliver", WhileBusy: true, Run: runSetHome},
	)
	slash.RegisterSkills(r, rt)
	return r
}

// answeredElsewhere: /approve and /deny are taken before dispatch, as
// answers to the chat's open question.
func answeredElsewhere(context.Context, slash.Host, string) error { return nil }

func runStatus(ctx context.Context, h slash.Host, _ string) error {
	ch := h.(*host)
	c := h.Conversation()
	model, prov := c.Model()
	q, err := ch.c.g.store.Queued(ctx, ch.c.key)
	if err != nil {
		return err
	}
	state := "idle"
	if ch.c.busy() {
		state = "a turn is running"
	}
	h.Print(slash.Info, fmt.Sprintf("Session %s · %s on %s · %s · %d message(s) queued", c.SessionID(), model, prov, state, len(q)))
	return nil
}

func runSetHome(ctx context.Context, h slash.Host, _ string) error {
	ch := h.(*host)
	if err := SetHome(ctx, ch.c.g.store, ch.m.Platform, ch.m.Chat); err != nil {
		return fmt.Errorf("setting the home channel: %w", err)
	}
	h.Print(slash.Info, fmt.Sprintf("This chat is now the %s home channel: cron jobs and webhook runs that name no chat deliver here.", ch.m.Platform))
	return nil
}

// host is a chat's side of a slash command: the conversation it runs
// on (the running turn's for a command allowed while busy, else one
// opened for the command), replies sent to the chat.
type host struct {
	c   *chat
	m   Inbound
	ctx context.Context

	mu   sync.Mutex
	conv *app.Conversation
	next string // a turn a command asked for (/retry, a skill)
}

var _ slash.Host = (*host)(nil)

func (h *host) Runtime() *app.Runtime { return h.c.g.rt }

func (h *host) Conversation() *app.Conversation {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.conv
}

func (h *host) Open(ctx context.Context, o app.ConversationOptions) (*app.Conversation, error) {
	if o.Resume == "" && o.Fork == "" {
		o.SessionID = session.NewID(h.c.g.o.Now)
	}
	if o.Model != "" {
		if err := h.c.g.store.Set(ctx, "model:"+h.c.key, o.Model); err != nil {
			return nil, err
		}
	}
	return h.c.open(ctx, o, nil)
}

func (h *host) Swap(c *app.Conversation) *app.Conversation {
	h.mu.Lock()
	defer h.mu.Unlock()
	old := h.conv
	h.conv = c
	if err := h.c.g.store.SetSession(h.ctx, h.c.key, c.SessionID()); err != nil {
		h.c.g.log.Error("recording a chat's session", "chat", h.c.key, "err", err)
	}
	return old
}

func (h *host) Print(kind slash.Kind, text string) {
	lim := h.c.a.Limits()
	switch kind {
	case slash.Markdown:
		for _, p := range renderParts(lim, text) {
			h.c.g.deliver(h.ctx, Delivery{Platform: h.c.a.Platform(), Chat: h.m.Chat, SessionKey: h.c.key, Text: p})
		}
		return
	case slash.Warning:
		text = "⚠ " + text
	case slash.Error:
		text = "✖ " + text
	}
	for _, p := range renderParts(Limits{MaxText: lim.MaxText, Format: "plain"}, text) {
		h.c.g.deliver(h.ctx, Delivery{Platform: h.c.a.Platform(), Chat: h.m.Chat, SessionKey: h.c.key, Text: p, Plain: true})
	}
}

func (h *host) Send(message string) {
	h.mu.Lock()
	h.next = message
	h.mu.Unlock()
}

func (h *host) Interrupt() bool     { return h.c.interrupt() }
func (h *host) Busy() bool          { return h.c.busy() }
func (h *host) Reset([]llm.Message) {}
func (h *host) Exit()               {}

// command runs a slash command m holds. running is the conversation of
// the turn running now (a command allowed while busy); without one the
// chat's conversation is opened for the command and closed after it. It
// returns the message of a turn the command asked for (/retry, a skill).
func (c *chat) command(ctx context.Context, m Inbound, running *app.Conversation) (next string) {
	name, args := commandName(m.Text)
	h := &host{c: c, m: m, ctx: ctx, conv: running}
	if running == nil {
		conv, err := c.open(ctx, app.ConversationOptions{}, nil)
		if err != nil {
			c.say(ctx, m, "I could not open this chat's session: "+err.Error())
			return ""
		}
		c.mu.Lock()
		c.conv = conv
		c.mu.Unlock()
		h.conv = conv
		defer func() {
			c.mu.Lock()
			c.conv = nil
			c.mu.Unlock()
			if err := h.Conversation().Close(); err != nil {
				c.g.log.Warn("closing a chat's conversation", "chat", c.key, "err", err)
			}
		}()
	}
	line := "/" + name
	if args != "" {
		line += " " + args
	}
	if _, err := c.g.commands.Dispatch(ctx, h, line); err != nil {
		h.Print(slash.Error, err.Error())
	}
	if running != nil {
		return "" // a command allowed while busy starts no turn
	}
	if model, _, ok := h.Conversation().PendingModel(); ok {
		if err := c.g.store.Set(ctx, "model:"+c.key, model); err != nil {
			c.g.log.Error("recording a chat's model", "chat", c.key, "err", err)
		}
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.next
}

// renderParts cuts text into messages of the platform's format.
func renderParts(lim Limits, md string) []string {
	return format.Render(lim.Format, md, lim.MaxText)
}
