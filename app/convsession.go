package app

import (
	"cmp"
	"context"
	"errors"
	"fmt"

	"github.com/hermes-go/hermes/agent"
	"github.com/hermes-go/hermes/llm"
	"github.com/hermes-go/hermes/prompt"
	"github.com/hermes-go/hermes/session"
)

// openSession picks the conversation's session: a fork of a stored one,
// a stored one resumed, or a new one (named opts.SessionID when given).
// It is held before anything is read or written.
func (c *Conversation) openSession(ctx context.Context) (agent.SessionMeta, []llm.Message, string, error) {
	o := c.opts
	switch {
	case o.Fork != "":
		s, err := c.rt.store.Resolve(ctx, o.Fork)
		if err != nil {
			return agent.SessionMeta{}, nil, "", configErr(fmt.Errorf("fork %q: %w", o.Fork, err))
		}
		child, err := c.rt.store.Fork(ctx, s.ID, "")
		if err != nil {
			return agent.SessionMeta{}, nil, "", fmt.Errorf("fork %s: %w", s.ID, err)
		}
		return c.loadSession(ctx, child.ID)
	case o.Resume != "":
		return c.loadSession(ctx, o.Resume)
	}
	id := o.SessionID
	if id == "" {
		var err error
		if id, err = c.holdNewID(ctx); err != nil {
			return agent.SessionMeta{}, nil, "", err
		}
	} else if err := c.hold(ctx, id); err != nil {
		return agent.SessionMeta{}, nil, "", err
	}
	return agent.SessionMeta{ID: id, Source: cmp.Or(o.Source, c.rt.opts.Source), Cwd: c.ws.workdir}, nil, "", nil
}

// holdNewID names a new session and holds it. An id is a second's
// timestamp and 24 random bits, so a runtime opening thousands of
// sessions a second meets ids already taken: one held by another
// conversation, or stored by an earlier one, is passed over.
func (c *Conversation) holdNewID(ctx context.Context) (string, error) {
	for attempt := 0; ; attempt++ {
		id := c.rt.newSessionID()
		err := c.hold(ctx, id)
		if err == nil {
			if taken, gerr := c.rt.store.Exists(ctx, id); gerr == nil && !taken {
				return id, nil
			}
			c.release(id)
		}
		if err != nil && !errors.Is(err, session.ErrBusy) || attempt == 8 {
			return "", fmt.Errorf("naming a new session: %w", cmp.Or(err, errors.New("every id tried is taken")))
		}
	}
}

// release lets go of a session hold took.
func (c *Conversation) release(id string) {
	c.mu.Lock()
	release := c.locks[id]
	delete(c.locks, id)
	c.mu.Unlock()
	c.ws.convs.CompareAndDelete(id, c)
	if release != nil {
		if err := release(); err != nil {
			c.warning(fmt.Sprintf("session store: %v", err))
		}
	}
}

// loadSession holds the stored session ref names, reopens it and reads
// its history, and its system prompt when it was built for the model and
// provider the conversation is on (so the provider's prompt cache still
// hits).
func (c *Conversation) loadSession(ctx context.Context, ref string) (agent.SessionMeta, []llm.Message, string, error) {
	st := c.rt.store
	s, err := st.Resolve(ctx, ref)
	if err != nil {
		return agent.SessionMeta{}, nil, "", configErr(fmt.Errorf("resume %q: %w", ref, err))
	}
	// Held before anything is read or written: a second writer resuming
	// the session is refused rather than interleaving its messages.
	if err := c.hold(ctx, s.ID); err != nil {
		if errors.Is(err, session.ErrBusy) {
			err = configErr(fmt.Errorf("resume %q: %w", ref, err))
		}
		return agent.SessionMeta{}, nil, "", err
	}
	msgs, err := st.Messages(ctx, s.ID)
	if err != nil {
		return agent.SessionMeta{}, nil, "", fmt.Errorf("resume %s: %w", s.ID, err)
	}
	stored := s.SystemPrompt
	ep := c.entries[0]
	if stored != "" && !prompt.IdentityMatches(stored, ep.Model, ep.Provider) {
		stored = "" // built for another model or provider: rebuild it
	}
	if len(c.opts.Skills) > 0 {
		stored = "" // the skills to preload go into a new prompt
	}
	if err := st.Reopen(ctx, s.ID); err != nil {
		return agent.SessionMeta{}, nil, "", fmt.Errorf("resume %s: %w", s.ID, err)
	}
	if msgs == nil {
		msgs = []llm.Message{}
	}
	return agent.SessionMeta{ID: s.ID, Source: s.Source, ParentID: s.ParentID, Model: s.Model, Provider: s.Provider, Cwd: s.Cwd}, msgs, stored, nil
}

// hold makes the conversation the one writer of session id until Close
// (session.Store.Acquire).
func (c *Conversation) hold(ctx context.Context, id string) error {
	release, err := c.rt.store.Acquire(ctx, id)
	if err != nil {
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.locks == nil { // closed meanwhile
		return errors.Join(release(), ErrConversationClosed)
	}
	if prev := c.locks[id]; prev != nil {
		prev() // held twice: keep one
	}
	c.locks[id] = release
	c.ws.convs.Store(id, c)
	if u, ok := c.ws.be.(interface{ UseSession(string) }); ok {
		u.UseSession(id) // file tools outside the workspace act in its container
	}
	return nil
}

// newHeldSessionID names the child session a compression continues in
// and holds it before it exists, so no other writer can resume it
// between its creation and this conversation's next write.
func (c *Conversation) newHeldSessionID() string {
	id, err := c.holdNewID(context.Background())
	if err != nil {
		c.warning(fmt.Sprintf("session store: %v", err))
		return c.rt.newSessionID()
	}
	return id
}

// End records that the conversation is done with its session (a resume
// reopens it); reason defaults to "ended". A session never stored,
// because no message was sent, has nothing to end.
func (c *Conversation) End(reason string) error {
	err := c.rt.store.EndSession(context.Background(), c.SessionID(), cmp.Or(reason, "ended"))
	if err != nil && !errors.Is(err, session.ErrNotFound) {
		return fmt.Errorf("session store: %w", err)
	}
	return nil
}

// Stored is the current session as stored; a session not stored yet
// (no message sent) is returned from what the conversation knows, with
// session.ErrNotFound.
func (c *Conversation) Stored(ctx context.Context) (session.Session, error) {
	meta := c.agent.Session()
	s, err := c.rt.store.Get(ctx, meta.ID)
	if errors.Is(err, session.ErrNotFound) {
		model, prov := c.Model()
		return session.Session{ID: meta.ID, Source: meta.Source, Cwd: meta.Cwd, Model: model, Provider: prov}, err
	}
	return s, err
}
