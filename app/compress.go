package app

import (
	"context"
	"path/filepath"

	"github.com/hermes-go/hermes/agent"
	"github.com/hermes-go/hermes/compress"
	"github.com/hermes-go/hermes/provider"
)

// wireCompression gives the agent its context window (built-in table,
// model.context_length, or a limit learned from an earlier overflow) and
// the compressor, whose summaries come from auxiliary.compression. Before
// compressing, pending memory writes are flushed, and the active task
// list is carried into the summary.
func (rt *Runtime) wireCompression(ctx context.Context, acfg *agent.Config) error {
	cache, err := provider.OpenContextCache(filepath.Join(rt.cfg.Home, "context_lengths.json"))
	if err != nil {
		rt.warn(err.Error())
		cache = nil
	}
	acfg.ContextLength = provider.ContextWindow(rt.endpoint, cache)
	ep := rt.endpoint
	acfg.LearnContextLimit = func(model string, limit int) {
		if cache != nil {
			if err := cache.Learn(model, ep.BaseURL, limit); err != nil {
				rt.eventWarning(err.Error())
			}
		}
	}
	if c := rt.cfg.Compression.Enabled; c != nil && !*c {
		return nil
	}
	summarizer, problems, err := provider.NewAuxiliary(ctx, provider.TaskCompression, rt.pcfg, provider.ChainOptions{
		Factory: rt.factory(), Resolver: rt.resolver, Transport: rt.transportOptions(), Now: rt.opts.Now,
	})
	for _, p := range problems {
		rt.warn("auxiliary compression: " + p.Error())
	}
	if err != nil {
		return configErr(err)
	}
	c := &compress.Compressor{
		Summarizer:    rt.meter.wrap(provider.TaskCompression, summarizer),
		Model:         summarizer.Current().Model,
		Threshold:     rt.cfg.Compression.Threshold,
		ProtectFirstN: rt.cfg.Compression.ProtectFirstN,
		ProtectLastN:  rt.cfg.Compression.ProtectLastN,
		ContextLength: acfg.ContextLength,
		Todos:         rt.todos.Reminder,
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
