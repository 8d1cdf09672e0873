package app

import (
	"cmp"
	"context"
	"fmt"
	"net/http"
	"time"

	"github.com/hermes-go/hermes/config"
	"github.com/hermes-go/hermes/internal/netguard"
	"github.com/hermes-go/hermes/provider"
	"github.com/hermes-go/hermes/tool"
	"github.com/hermes-go/hermes/tools/web"
)

// optionalToolsets are toolsets whose tools are offered only when
// configured; --toolsets may name them all the same.
var optionalToolsets = []string{"web", "vision", "browser"}

// webClient is the HTTP client of the tools that fetch what the model
// names: every connection, redirects included, is checked by the guard.
func (rt *Runtime) webClient() *http.Client {
	rt.webOnce.Do(func() {
		g := &netguard.Guard{AllowPrivate: rt.cfg.Web.AllowPrivate}
		rt.web = g.Client(netguard.ClientOptions{})
	})
	return rt.web
}

// webTools are web_extract (always, with the toolset), web_search (when
// a backend is configured) and vision_analyze (when a vision model is).
func (rt *Runtime) webTools(ctx context.Context) ([]tool.Tool, error) {
	var out []tool.Tool
	if toolsetEnabled(rt.cfg, "web") {
		ex, err := rt.extractTool(ctx)
		if err != nil {
			return nil, err
		}
		out = append(out, ex)
		s, err := rt.searchTool()
		if err != nil {
			return nil, err
		}
		if s != nil {
			out = append(out, s)
		}
	}
	v, err := rt.visionTool(ctx)
	if err != nil {
		return nil, err
	}
	if v != nil {
		out = append(out, v)
	}
	return out, nil
}

func (rt *Runtime) extractTool(ctx context.Context) (tool.Tool, error) {
	w := rt.cfg.Web
	o := web.ExtractOptions{
		Client: rt.webClient(), MaxURLs: w.MaxURLs, MaxPageBytes: w.MaxPageBytes,
		Timeout: config.Seconds(w.Timeout), SummarizeOver: w.SummarizeOver, Now: rt.opts.Now,
	}
	switch {
	case w.HostIntervalMS < 0:
		o.MinInterval = -1
	case w.HostIntervalMS > 0:
		o.MinInterval = time.Duration(w.HostIntervalMS) * time.Millisecond
	}
	if w.SummarizeOver >= 0 {
		chain, err := rt.auxChain(ctx, provider.TaskWebExtract)
		if err != nil {
			return nil, err
		}
		o.Summarizer, o.SummaryModel = rt.meter.wrap(provider.TaskWebExtract, chain), chain.Current().Model
	}
	return web.NewExtract(o), nil
}

// searchKeyEnvs returns the variables a keyed backend reads its key from.
func searchKeyEnvs(backend string) []string {
	switch backend {
	case "brave":
		return []string{"BRAVE_API_KEY", "BRAVE_SEARCH_API_KEY"}
	case "tavily":
		return []string{"TAVILY_API_KEY"}
	case "exa":
		return []string{"EXA_API_KEY"}
	case "firecrawl":
		return []string{"FIRECRAWL_API_KEY"}
	}
	return nil
}

// searchTool is web_search over the configured backend, nil when none is.
func (rt *Runtime) searchTool() (tool.Tool, error) {
	s := rt.cfg.Web.Search
	key := func(name string) string {
		if name == s.Backend || s.Backend == "" {
			if s.APIKey != "" {
				return s.APIKey
			}
			if s.KeyEnv != "" {
				return rt.getenv(s.KeyEnv)
			}
		}
		for _, env := range searchKeyEnvs(name) {
			if v := rt.getenv(env); v != "" {
				return v
			}
		}
		return ""
	}
	searx := cmp.Or(s.SearxngURL, rt.getenv("SEARXNG_URL"))
	name := s.Backend
	if name == "" {
		switch {
		case searx != "":
			name = "searxng"
		default:
			for _, n := range []string{"brave", "tavily", "exa", "firecrawl"} {
				if key(n) != "" {
					name = n
					break
				}
			}
		}
	}
	if name == "" {
		return nil, nil // no backend: web_search is not offered
	}
	bc := web.BackendConfig{Name: name, BaseURL: s.BaseURL, APIKey: key(name), Client: &http.Client{Timeout: 30 * time.Second}}
	if name == "searxng" {
		bc.BaseURL = cmp.Or(searx, s.BaseURL)
	}
	if rt.redactor != nil && bc.APIKey != "" {
		rt.redactor.Add(bc.APIKey)
	}
	b, err := web.NewBackend(bc)
	if err != nil {
		return nil, configErr(fmt.Errorf("web.search: %w", err))
	}
	return web.NewSearch(web.SearchOptions{Backend: b, DefaultResults: cmp.Or(s.MaxResults, 5), MaxResults: max(s.MaxResults, 10)}), nil
}
