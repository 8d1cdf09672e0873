package app

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/hermes-go/hermes/agent"
	"github.com/hermes-go/hermes/llm"
	"github.com/hermes-go/hermes/provider"
	"github.com/hermes-go/hermes/session"
)

// titleTimeout bounds the background title call.
const titleTimeout = 60 * time.Second

// TitleSession names the session in the background after its first
// completed turn, with the auxiliary.title_generation model; a session
// that already has a title keeps it. Interactive surfaces call it after
// each turn; Runtime.Close waits for a title being written. Failures are
// warning events. One-shot runs should not call it: the process ends
// with the turn, and a hidden extra model call would only cost the user.
func (c *Conversation) TitleSession(ctx context.Context, res *agent.Result, firstUser string) {
	rt := c.rt
	if res == nil || !res.Completed || res.SessionID == "" {
		return
	}
	if s, err := rt.store.Get(ctx, res.SessionID); err != nil || s.Title != "" {
		return
	}
	c.mu.Lock()
	tried := c.titleTried
	c.titleTried = true
	c.mu.Unlock()
	if tried {
		return // once per conversation: a compression's continuation keeps it
	}
	chain, err := rt.titleChain(ctx, c.warning)
	if err != nil {
		c.warning("title generation: " + err.Error())
		return
	}
	id := res.SessionID
	rt.titles.Add(1)
	tctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), titleTimeout)
	generateTitleAsync(tctx, chain, firstUser, res.FinalResponse, func(title string, err error) {
		defer rt.titles.Done()
		defer cancel()
		if err == nil {
			if s, gerr := rt.store.Get(tctx, id); gerr == nil && s.Title != "" {
				return // named meanwhile (/title): the user's name stays
			}
			err = rt.setTitle(tctx, id, title)
		}
		if err != nil {
			c.warning(fmt.Sprintf("session title: %v", err))
		}
	})
}

func (rt *Runtime) titleChain(ctx context.Context, warn func(string)) (llm.Client, error) {
	chain, problems, err := provider.NewAuxiliary(ctx, provider.TaskTitleGeneration, rt.pcfg, provider.ChainOptions{
		Factory: rt.factory(), Resolver: rt.resolver, Transport: rt.transportOptions(), MaxRetries: -1, Now: rt.opts.Now,
	})
	for _, p := range problems {
		warn("title generation: " + p.Error())
	}
	if err != nil {
		return nil, err
	}
	return rt.meter.wrap(provider.TaskTitleGeneration, chain), nil
}

// setTitle stores a title; titles are unique, so a second "Fix tests"
// becomes "Fix tests #2".
func (rt *Runtime) setTitle(ctx context.Context, id, title string) error {
	err := rt.store.SetTitle(ctx, id, title)
	if errors.Is(err, session.ErrTitleTaken) {
		if title, err = rt.store.NextTitle(ctx, title); err == nil {
			err = rt.store.SetTitle(ctx, id, title)
		}
	}
	return err
}
