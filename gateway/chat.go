package gateway

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/hermes-go/hermes/agent"
	"github.com/hermes-go/hermes/app"
	"github.com/hermes-go/hermes/session"
)

// chat is one conversation's place in the gateway: its queue's worker,
// the conversation while a turn or command holds it open, and the
// questions it waits on. It exists while it has work; an idle chat is
// forgotten (its session id and queue live in the store).
type chat struct {
	g   *Gateway
	key string
	a   Adapter
	ref ChatRef

	mu      sync.Mutex
	working bool // a worker goroutine runs
	dirty   bool // a message was queued since the worker last looked
	conv    *app.Conversation
	turning bool // conv is running a turn
	user    string
	admin   bool // the turn's user is an admin
	asks    []*ask
}

// chatFor returns the chat of key, making it when it has none.
func (g *Gateway) chatFor(key string, a Adapter, ref ChatRef) *chat {
	g.mu.Lock()
	defer g.mu.Unlock()
	c, ok := g.chats[key]
	if !ok {
		c = &chat{g: g, key: key, a: a, ref: ref}
		g.chats[key] = c
	}
	return c
}

// forget drops an idle chat from memory.
func (c *chat) forget() {
	c.g.mu.Lock()
	defer c.g.mu.Unlock()
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.working && c.conv == nil && len(c.asks) == 0 && c.g.chats[c.key] == c {
		delete(c.g.chats, c.key)
		if len(c.g.chats) == 0 {
			// A map keeps the buckets of its busiest moment: start afresh.
			c.g.chats = map[string]*chat{}
			defer func() { go c.g.quiet() }()
		}
	}
}

// receive takes a message from a person allowed to talk: an answer to a
// question the chat waits on, an /approve or /deny, a command, or text
// for the model, which busy mode decides about while a turn runs.
func (c *chat) receive(ctx context.Context, m Inbound, isAdmin bool) error {
	name, args := commandName(m.Text)
	if name == "" && c.answerText(ctx, m) {
		return nil
	}
	switch name {
	case "approve", "deny":
		c.answerCommand(ctx, m, name, args)
		return nil
	case "":
	default:
		cmd, err := c.g.commands.Lookup(name)
		if err != nil {
			c.say(ctx, m, err.Error())
			return nil
		}
		if !isAdmin && !safeCommand(cmd) {
			c.say(ctx, m, fmt.Sprintf("/%s is for the bot's admins.", cmd.Name))
			return nil
		}
		if conv := c.running(); cmd.WhileBusy && conv != nil {
			c.g.wg.Go(func() { c.command(c.g.workCtx(), m, conv) })
			return nil
		}
		return c.enqueue(ctx, m)
	}

	if c.busy() {
		switch c.g.o.BusyMode {
		case BusySteer:
			if conv := c.running(); conv != nil && conv.Steer(m.Text) {
				c.say(ctx, m, "Added to the running turn.")
				return nil
			}
		case BusyInterrupt:
			if err := c.enqueue(ctx, m); err != nil {
				return err
			}
			c.interrupt()
			return nil
		case BusyQueue:
			if err := c.enqueue(ctx, m); err != nil {
				return err
			}
			c.say(ctx, m, "Queued: I'll answer it when the current turn ends.")
			return nil
		}
	}
	return c.enqueue(ctx, m)
}

// enqueue stores m in the chat's queue and makes sure a worker takes it.
func (c *chat) enqueue(ctx context.Context, m Inbound) error {
	if len(m.Attachments) > 0 {
		c.g.mu.Lock()
		c.g.files[m.MessageID] = m.Attachments
		c.g.mu.Unlock()
	}
	if _, err := c.g.store.Enqueue(ctx, c.key, m); err != nil {
		return fmt.Errorf("gateway: queue: %w", err)
	}
	c.kick()
	return nil
}

// kick starts the chat's worker, or tells the running one to look again.
func (c *chat) kick() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.dirty = true
	if c.working {
		return
	}
	ctx := c.g.workCtx()
	if ctx == nil {
		return // Run starts the queues it finds
	}
	c.working = true
	c.g.wg.Go(func() { c.work(ctx) })
}

// workCtx is the context chat work runs in: Run's, which outlives the
// adapters so that replies of a draining gateway are still delivered.
func (g *Gateway) workCtx() context.Context {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.ctx
}

// work takes the chat's queued messages in order, one turn at a time.
func (c *chat) work(ctx context.Context) {
	defer c.forget()
	for {
		c.mu.Lock()
		c.dirty = false
		c.mu.Unlock()
		q, err := c.g.store.Queued(ctx, c.key)
		if err != nil {
			c.g.log.Error("reading a chat's queue", "chat", c.key, "err", err)
		}
		if len(q) == 0 || err != nil {
			c.mu.Lock()
			if c.dirty && err == nil {
				c.mu.Unlock()
				continue
			}
			c.working = false
			c.mu.Unlock()
			return
		}
		next := q[0]
		// Taken off the queue before it runs: a crash during the turn
		// leaves the message in its session, and never runs its tools a
		// second time.
		if err := c.g.store.Dequeue(ctx, next.Seq); err != nil {
			c.g.log.Error("dequeue", "chat", c.key, "err", err)
		}
		m := c.g.withFiles(next.Message)
		role, err := c.g.role(ctx, m.Platform, m.UserID)
		if err != nil || role == stranger {
			continue // access revoked while it waited
		}
		if name, _ := commandName(m.Text); name != "" {
			next := c.command(ctx, m, nil)
			if next == "" {
				continue
			}
			m.Text, m.Attachments = next, nil
		}
		c.turn(ctx, m, role == admin)
	}
}

func (c *chat) busy() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.turning
}

// running is the conversation of the running turn, nil when none runs.
func (c *chat) running() *app.Conversation {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.turning {
		return nil
	}
	return c.conv
}

// interrupt stops the running turn; it reports whether one ran.
func (c *chat) interrupt() bool {
	c.mu.Lock()
	conv, on := c.conv, c.turning
	c.mu.Unlock()
	if on && conv != nil {
		conv.Interrupt()
	}
	return on
}

// open opens the chat's conversation: the session the store names for
// it (or a new one, which the store then names), on the model the chat
// switched to, with the chat's approval and clarify callbacks.
func (c *chat) open(ctx context.Context, o app.ConversationOptions, obs agent.Observer) (*app.Conversation, error) {
	g := c.g
	t := g.o.Conversation
	t.Resume, t.Fork, t.SessionID, t.Model = o.Resume, o.Fork, o.SessionID, o.Model
	if t.Model == "" {
		m, ok, err := g.store.Get(ctx, "model:"+c.key)
		if err != nil {
			return nil, fmt.Errorf("gateway: the chat's model: %w", err)
		}
		if ok {
			t.Model = m
		}
	}
	t.Source = c.a.Platform()
	t.Platform = c.a.Platform()
	t.Origin = c.a.Platform() + ":" + c.ref.ChatID
	if c.ref.ThreadID != "" {
		t.Origin += ":" + c.ref.ThreadID
	}
	t.Approve = c.approve
	t.Clarify = c.clarify
	t.Observer = obs
	t.Yolo = false // --yolo does not exist here
	t.SystemPrompt = strings.TrimSpace(t.SystemPrompt + "\n\n" + mediaHint)
	// The chat's own session, unless a command names another (whose
	// Swap records it).
	stored, own := "", t.Resume == "" && t.Fork == "" && t.SessionID == ""
	if own {
		var err error
		if stored, err = g.store.Session(ctx, c.key); err != nil {
			return nil, fmt.Errorf("gateway: the chat's session: %w", err)
		}
		t.Resume = stored
	}
	conv, err := g.rt.Open(ctx, t)
	if err != nil && t.Resume != "" && errors.Is(err, session.ErrNotFound) {
		// Named by /new but never written to, or deleted: a new session
		// under the same id when it has none yet.
		t.SessionID, t.Resume = t.Resume, ""
		conv, err = g.rt.Open(ctx, t)
		if err != nil {
			t.SessionID = ""
			conv, err = g.rt.Open(ctx, t)
		}
	}
	if err != nil {
		return nil, err
	}
	if own && conv.SessionID() != stored {
		if err := g.store.SetSession(ctx, c.key, conv.SessionID()); err != nil {
			conv.Close()
			return nil, fmt.Errorf("gateway: the chat's session: %w", err)
		}
	}
	return conv, nil
}

// turn runs one message through the model and delivers the answer.
func (c *chat) turn(ctx context.Context, m Inbound, isAdmin bool) {
	g := c.g
	select {
	case g.slots <- struct{}{}:
	default:
		// Every turn slot is taken: say so, then wait for one.
		c.say(ctx, m, "Many conversations are running right now; yours starts as soon as one ends.")
		select {
		case g.slots <- struct{}{}:
		case <-ctx.Done():
			return
		}
	}
	defer func() { <-g.slots }()

	st := newStream(c, m)
	conv, err := c.open(ctx, app.ConversationOptions{}, st.observe)
	if err != nil {
		g.log.Error("opening a chat's conversation", "chat", c.key, "err", err)
		c.say(ctx, m, "I could not open this chat's session: "+err.Error())
		return
	}
	c.mu.Lock()
	c.conv, c.turning, c.user, c.admin = conv, true, m.UserID, isAdmin
	c.mu.Unlock()
	defer func() {
		c.mu.Lock()
		c.conv, c.turning, c.user, c.admin = nil, false, "", false
		c.mu.Unlock()
		if err := g.store.SetSession(ctx, c.key, conv.SessionID()); err != nil {
			g.log.Error("recording a chat's session", "chat", c.key, "err", err)
		}
		if err := conv.Close(); err != nil {
			g.log.Warn("closing a chat's conversation", "chat", c.key, "err", err)
		}
	}()

	// The gateway compresses before a turn once the context is 85% full.
	if _, err := conv.CompressOver(ctx, 0.85); err != nil {
		g.log.Warn("compression before a turn", "chat", c.key, "err", err)
	}
	in, notes := g.input(ctx, m, conv.AcceptsImages())
	for _, n := range notes {
		c.say(ctx, m, n)
	}
	if err := c.a.Typing(ctx, c.ref); err != nil {
		g.log.Debug("typing", "chat", c.key, "err", err)
	}
	res, err := conv.Run(ctx, in)
	st.finish(ctx, res, err)
	for _, text := range pendingSteer(res) {
		// Said while the turn ran, after its last model call: the next turn.
		next := m
		next.Text, next.Attachments = text, nil
		if _, err := c.g.store.Enqueue(ctx, c.key, next); err != nil {
			g.log.Error("queueing a steered message", "chat", c.key, "err", err)
		}
	}
}

// say sends a short plain reply to the chat m came from.
func (c *chat) say(ctx context.Context, m Inbound, text string) {
	if _, err := c.g.deliver(ctx, Delivery{Platform: c.a.Platform(), Chat: m.Chat, SessionKey: c.key, Text: text, Plain: true}); err != nil {
		c.g.log.Error("reply", "chat", c.key, "err", err)
	}
}

// deliver writes a reply to the ledger and wakes its platform's sender.
func (g *Gateway) deliver(ctx context.Context, d Delivery) (int64, error) {
	s, ok := g.senders[d.Platform]
	if !ok {
		return 0, fmt.Errorf("gateway: platform %s is not enabled", d.Platform)
	}
	id, err := g.store.AddDelivery(context.WithoutCancel(ctx), d)
	if err != nil {
		return 0, fmt.Errorf("gateway: delivery ledger: %w", err)
	}
	s.Notify()
	return id, nil
}

// withFiles gives a queued message back the attachments it came with;
// after a restart they cannot be fetched, and the message says so.
func (g *Gateway) withFiles(m Inbound) Inbound {
	g.mu.Lock()
	files, ok := g.files[m.MessageID]
	delete(g.files, m.MessageID)
	g.mu.Unlock()
	if ok {
		m.Attachments = files
		return m
	}
	for i := range m.Attachments {
		m.Attachments[i].Open = nil // named in the turn as not fetched
	}
	return m
}

func pendingSteer(res *agent.Result) []string {
	if res == nil {
		return nil
	}
	return res.PendingSteer
}
