package app

import (
	"context"
	"slices"
	"time"

	"github.com/hermes-go/hermes/config"
	"github.com/hermes-go/hermes/internal/netguard"
	"github.com/hermes-go/hermes/provider"
	"github.com/hermes-go/hermes/tool"
	"github.com/hermes-go/hermes/tools/browser"
)

// BrowserStatus says which browser the browser tools would drive, or
// why there is none (hermes browser status).
type BrowserStatus struct {
	// Available is true when a browser was found (or browser.cdp_url
	// names one to attach to).
	Available bool   `json:"available"`
	Path      string `json:"path,omitempty"`
	CDPURL    string `json:"cdp_url,omitempty"`
	Source    string `json:"source,omitempty"`
	// Reason says why none is available.
	Reason string `json:"reason,omitempty"`
	// AllowPrivate is web.allow_private: pages may reach local and
	// private addresses.
	AllowPrivate bool `json:"allow_private"`
	// IdleTimeout is how long an unused browser stays open, in seconds
	// (0: until the conversation ends).
	IdleTimeout int  `json:"idle_timeout"`
	Headless    bool `json:"headless"`
}

// FindBrowser reports the browser of cfg's settings and environment,
// without starting it.
func FindBrowser(cfg *config.Config, getenv func(string) string) BrowserStatus {
	st := BrowserStatus{AllowPrivate: cfg.Web.AllowPrivate, IdleTimeout: int(browser.DefaultIdleTimeout / time.Second), Headless: true}
	if t := cfg.Browser.IdleTimeout; t != nil {
		st.IdleTimeout = *t
	}
	if h := cfg.Browser.Headless; h != nil {
		st.Headless = *h
	}
	f, err := browser.Find(cfg.Browser.Executable, cfg.Browser.CDPURL, getenv, nil)
	if err != nil {
		st.Reason = err.Error()
		return st
	}
	st.Available, st.Path, st.CDPURL, st.Source = true, f.Path, f.CDPURL, f.Source
	return st
}

// browserOffered says whether the conversation gets the browser tools:
// where its toolset is on and a browser is found; by default only in
// conversations with a person or a chat behind them (an origin), since
// their fourteen schemas weigh on every request, and elsewhere (one-shot
// runs, the API, batch) where the run's toolsets name browser. The
// toolsets setting of config.yaml only turns it on or off: a list that
// names every toolset on (hermes setup tools writes one) does not put the
// browser into every one-shot run.
func (c *Conversation) browserOffered() bool {
	if !c.toolsetOn(browser.Toolset) {
		return false
	}
	named := slices.Contains(c.opts.Toolsets, browser.Toolset) || slices.Contains(c.opts.Toolsets, "all")
	return c.opts.Origin != "" || named
}

// browserTools are the conversation's browser tools over a browser of
// its own, started on first use and closed with the conversation; none
// when no browser is found (a warning says why, when the toolsets named
// it).
func (c *Conversation) browserTools(ctx context.Context) []tool.Tool {
	rt := c.rt
	st := FindBrowser(rt.cfg, rt.getenv)
	if !st.Available {
		if slices.Contains(c.opts.Toolsets, browser.Toolset) || slices.Contains(rt.cfg.Toolsets, browser.Toolset) {
			c.warning("browser tools not offered: " + st.Reason)
		}
		return nil
	}
	o := browser.Options{
		Found:    browser.Found{Path: st.Path, CDPURL: st.CDPURL, Source: st.Source},
		Headless: rt.cfg.Browser.Headless,
		Guard:    &netguard.Guard{AllowPrivate: rt.cfg.Web.AllowPrivate},
		Workdir:  c.ws.workdir,
		Redact:   rt.redact,
	}
	if st.IdleTimeout == 0 {
		o.IdleTimeout = -1
	} else {
		o.IdleTimeout = time.Duration(st.IdleTimeout) * time.Second
	}
	if toolsetEnabled(rt.cfg, "vision") && rt.visionConfigured() {
		if chain, err := rt.auxChain(ctx, provider.TaskVision); err == nil {
			o.Vision, o.VisionModel = rt.meter.wrap(provider.TaskVision, chain), chain.Current().Model
		} else {
			c.warning("browser_vision not offered: " + err.Error())
		}
	}
	b := browser.New(o)
	c.closers = append(c.closers, b.Close)
	return b.Tools()
}
