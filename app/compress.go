package app

import (
	"context"
	"fmt"
	"path/filepath"
	"sync"

	"github.com/hermes-go/hermes/agent"
	"github.com/hermes-go/hermes/compress"
	"github.com/hermes-go/hermes/llm"
	"github.com/hermes-go/hermes/provider"
)

// wireCompression gives the agent its context window (built-in table,
// model.context_length, or a limit learned from an earlier overflow) and
// the compressor, whose summaries come from auxiliary.compression. Before
// compressing, pending memory writes are flushed, and the active task
// list is carried into the summary.
func (rt *Runtime) wireCompression(ctx context.Context, acfg *agent.Config, b *agentBuild) error {
	cache, err := rt.contextCache()
	if err != nil {
		b.warn(err.Error())
		cache = nil
	}
	acfg.ContextLength = provider.ContextWindow(rt.endpoint, cache)
	ep := rt.endpoint
	acfg.LearnContextLimit = func(model string, limit int) {
		if cache != nil {
			if err := cache.Learn(model, ep.BaseURL, limit); err != nil {
				b.warn(err.Error())
			}
		}
	}
	if c := rt.cfg.Compression.Enabled; c != nil && !*c {
		return nil
	}
	summarizer, model, err := rt.summarizer(ctx)
	if err != nil {
		return err
	}
	c := &compress.Compressor{
		Summarizer:    summarizer,
		Model:         model,
		Threshold:     rt.cfg.Compression.Threshold,
		ProtectFirstN: rt.cfg.Compression.ProtectFirstN,
		ProtectLastN:  rt.cfg.Compression.ProtectLastN,
		ContextLength: acfg.ContextLength,
		Todos:         b.todos.Reminder,
	}
	if mem := rt.memory; mem != nil {
		// Nothing the agent learned is lost with the summarised turns.
		c.BeforeCompress = func(context.Context) error {
			_, err := mem.Sync()
			return err
		}
	}
	acfg.Compressor = c
	return nil
}

// contextCache opens HERMES_HOME/context_lengths.json once per runtime.
func (rt *Runtime) contextCache() (*provider.ContextCache, error) {
	rt.ctxOnce.Do(func() {
		rt.ctxCache, rt.ctxErr = provider.OpenContextCache(filepath.Join(rt.cfg.Home, "context_lengths.json"))
	})
	return rt.ctxCache, rt.ctxErr
}

// summarizer is the auxiliary compression chain, resolved once per
// runtime; each agent gets its own chain over it (a fallback in one
// summary never moves another's), built at its first summary.
func (rt *Runtime) summarizer(ctx context.Context) (llm.Client, string, error) {
	rt.auxOnce.Do(func() {
		first, problems, err := provider.NewAuxiliary(ctx, provider.TaskCompression, rt.pcfg, rt.auxOptions())
		for _, p := range problems {
			rt.warn("auxiliary compression: " + p.Error())
		}
		if err != nil {
			rt.auxErr = configErr(err)
			return
		}
		rt.auxFirst = first
		rt.auxModel = first.Current().Model
	})
	if rt.auxErr != nil {
		return nil, "", rt.auxErr
	}
	if first := rt.takeFirstSummarizer(); first != nil {
		return first, rt.auxModel, nil
	}
	return &lazyClient{build: func() (llm.Client, error) {
		c, _, err := provider.NewAuxiliary(context.Background(), provider.TaskCompression, rt.pcfg, rt.auxOptions())
		return c, err
	}}, rt.auxModel, nil
}

func (rt *Runtime) auxOptions() provider.ChainOptions {
	return provider.ChainOptions{Factory: rt.factory(), Resolver: rt.resolver, Transport: rt.transportOptions(), Now: rt.opts.Now}
}

// takeFirstSummarizer hands the chain resolved at start to the first
// agent that asks (the runtime's own).
func (rt *Runtime) takeFirstSummarizer() llm.Client {
	rt.auxMu.Lock()
	defer rt.auxMu.Unlock()
	c := rt.auxFirst
	rt.auxFirst = nil
	if c == nil {
		return nil
	}
	return c
}

// lazyClient builds its client at the first call.
type lazyClient struct {
	once   sync.Once
	build  func() (llm.Client, error)
	client llm.Client
	err    error
}

func (l *lazyClient) Complete(ctx context.Context, req *llm.Request, sink func(llm.Delta)) (*llm.Response, error) {
	l.once.Do(func() { l.client, l.err = l.build() })
	if l.err != nil {
		return nil, fmt.Errorf("auxiliary compression: %w", l.err)
	}
	return l.client.Complete(ctx, req, sink)
}
