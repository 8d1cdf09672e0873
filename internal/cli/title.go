package cli

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/hermes-go/hermes/agent"
	"github.com/hermes-go/hermes/llm"
	"github.com/hermes-go/hermes/provider"
	"github.com/hermes-go/hermes/provider/transport"
	"github.com/hermes-go/hermes/session"
)

// titler names an interactive session in the background after its first
// completed turn, with the auxiliary.title_generation model. A session
// that already has a title keeps it. One-shot runs are not titled: the
// process ends with the turn, and a hidden extra model call there would
// only cost the user.
type titler struct {
	rt   *runtime
	once sync.Once
	wg   sync.WaitGroup
}

func (t *titler) afterTurn(ctx context.Context, res *agent.Result, firstUser string) {
	if !res.Completed || res.SessionID == "" {
		return
	}
	if s, err := t.rt.store.Get(ctx, res.SessionID); err != nil || s.Title != "" {
		return
	}
	t.once.Do(func() {
		chain, problems, err := provider.NewAuxiliary(ctx, provider.TaskTitleGeneration, providerConfig(t.rt.cfg), provider.ChainOptions{
			Factory: transport.New, Resolver: t.rt.resolver, Transport: llm.Options{NoStream: t.rt.noStream}, MaxRetries: -1,
		})
		for _, p := range problems {
			t.rt.obs.emit(agent.Event{Kind: agent.EventWarning, Time: time.Now(), Text: "title generation: " + p.Error()})
		}
		if err != nil {
			t.rt.obs.emit(agent.Event{Kind: agent.EventWarning, Time: time.Now(), Text: "title generation: " + err.Error()})
			return
		}
		id := res.SessionID
		t.wg.Add(1)
		tctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 60*time.Second)
		provider.GenerateTitleAsync(tctx, chain, firstUser, res.FinalResponse, func(title string, err error) {
			defer t.wg.Done()
			defer cancel()
			if err == nil {
				err = t.rt.store.SetTitle(tctx, id, title)
				if errors.Is(err, session.ErrTitleTaken) {
					// Titles are unique: a second "Fix tests" becomes "Fix tests #2".
					if title, err = t.rt.store.NextTitle(tctx, title); err == nil {
						err = t.rt.store.SetTitle(tctx, id, title)
					}
				}
			}
			if err != nil {
				t.rt.obs.emit(agent.Event{Kind: agent.EventWarning, Time: time.Now(), Text: fmt.Sprintf("session title: %v", err)})
			}
		})
	})
}

// wait lets a title being written finish before the store closes.
func (t *titler) wait() { t.wg.Wait() }
