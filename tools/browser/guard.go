package browser

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"net"
	"net/netip"
	"net/url"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/fetch"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"

	"github.com/hermes-go/hermes/internal/netguard"
)

// RefusedError says why a URL may not be loaded.
type RefusedError struct {
	URL    string
	Reason string
}

func (e *RefusedError) Error() string { return fmt.Sprintf("refused %s: %s", e.URL, e.Reason) }

// checkURL decides whether the page may load u: http(s) and ws(s) to an
// address the guard allows (the host is resolved here and every address
// it has is checked), file:// only inside the workspace, and data:,
// blob: and about: pages, which reach no network.
func (b *Browser) checkURL(ctx context.Context, raw string) error {
	u, err := url.Parse(raw)
	if err != nil {
		return &RefusedError{URL: raw, Reason: "not a valid URL"}
	}
	switch strings.ToLower(u.Scheme) {
	case "http", "https", "ws", "wss":
		return b.checkHost(ctx, raw, u)
	case "file":
		return b.checkFile(raw, fileURL{u})
	case "data", "blob", "about":
		return nil
	}
	return &RefusedError{URL: raw, Reason: fmt.Sprintf("the %s: scheme is not allowed (only http, https, data: and file:// inside the workspace)", u.Scheme)}
}

func (b *Browser) checkHost(ctx context.Context, raw string, u *url.URL) error {
	host := u.Hostname()
	if host == "" {
		return &RefusedError{URL: raw, Reason: "no host"}
	}
	port := u.Port()
	if port == "" {
		port = "80"
		if s := strings.ToLower(u.Scheme); s == "https" || s == "wss" {
			port = "443"
		}
	}
	p, err := strconv.ParseUint(port, 10, 16)
	if err != nil {
		return &RefusedError{URL: raw, Reason: "bad port"}
	}
	var ips []netip.Addr
	if ip, err := netip.ParseAddr(strings.Trim(host, "[]")); err == nil {
		ips = []netip.Addr{ip}
	} else {
		r := b.o.Guard.Resolver
		if r == nil {
			r = net.DefaultResolver
		}
		if ips, err = r.LookupNetIP(ctx, "ip", host); err != nil {
			return &RefusedError{URL: raw, Reason: fmt.Sprintf("%s does not resolve: %v", host, err)}
		}
	}
	for _, ip := range ips {
		if err := b.checkAddr(ip, uint16(p)); err != nil {
			reason := err.Error()
			var be *netguard.BlockedError
			if errors.As(err, &be) {
				article := "a"
				if strings.ContainsRune("aeiou", rune(be.Reason[0])) {
					article = "an"
				}
				reason = fmt.Sprintf("%s is %s %s address", be.Addr, article, be.Reason)
				if !be.Always {
					reason += " (set web.allow_private: true to allow private and local addresses)"
				}
			}
			return &RefusedError{URL: raw, Reason: reason}
		}
	}
	return nil
}

// checkFile allows file:// URLs inside the workspace, symbolic links
// followed first.
func (b *Browser) checkFile(raw string, u interface{ path() (host, path string) }) error {
	if b.o.Workdir == "" {
		return &RefusedError{URL: raw, Reason: "file:// pages need a workspace"}
	}
	host, p := u.path()
	if host != "" && host != "localhost" {
		return &RefusedError{URL: raw, Reason: "file:// URLs on another host are not allowed"}
	}
	p = filepath.Clean(p)
	if real, err := filepath.EvalSymlinks(p); err == nil {
		p = real
	}
	root := filepath.Clean(b.o.Workdir)
	if real, err := filepath.EvalSymlinks(root); err == nil {
		root = real
	}
	if rel, err := filepath.Rel(root, p); err != nil || rel == ".." || strings.HasPrefix(rel, "../") {
		return &RefusedError{URL: raw, Reason: fmt.Sprintf("file outside the workspace (%s)", b.o.Workdir)}
	}
	return nil
}

// fileURL and urlPath are what checkFile looks at: a URL's host and
// path, or a plain path.
type (
	fileURL struct{ u *url.URL }
	urlPath struct{ p string }
)

func (f fileURL) path() (string, string)  { return f.u.Host, f.u.Path }
func (p *urlPath) path() (string, string) { return "", p.p }

// guardRequests answers every request the tab pauses: continued when
// checkURL allows it, failed (and remembered for the next result)
// otherwise. A redirect is a new paused request, checked the same way.
func (b *Browser) guardRequests(inst *instance, events iter.Seq2[fetch.EventRequestPaused, error], whole bool) {
	ctx := inst.ctx
	fail, cont := chromedp.Call[fetch.FailRequestParams, cdp.Empty], chromedp.Call[fetch.ContinueRequestParams, cdp.Empty]
	if whole {
		fail, cont = chromedp.CallBrowser[fetch.FailRequestParams, cdp.Empty], chromedp.CallBrowser[fetch.ContinueRequestParams, cdp.Empty]
	}
	for ev, err := range events {
		if err != nil {
			return
		}
		go func() {
			if err := b.checkURL(ctx, ev.Request.URL+ev.Request.URLFragment); err != nil {
				inst.noteRefused(err.Error())
				_, _ = fail(ctx, fetch.FailRequest, fetch.FailRequestParams{RequestID: ev.RequestID, ErrorReason: network.ErrorReasonBlockedByClient})
				return
			}
			_, _ = cont(ctx, fetch.ContinueRequest, fetch.ContinueRequestParams{RequestID: ev.RequestID})
		}()
	}
}

// pausedRequests subscribes to the requests the guard pauses: the whole
// browser's, or the tab's (wholeBrowser).
func (b *Browser) pausedRequests(ctx context.Context) (iter.Seq2[fetch.EventRequestPaused, error], bool) {
	if b.wholeBrowser() {
		return chromedp.BrowserEvents(ctx, fetch.RequestPaused), true
	}
	return chromedp.Events(ctx, fetch.RequestPaused), false
}

func (inst *instance) noteRefused(s string) {
	inst.mu.Lock()
	defer inst.mu.Unlock()
	if len(inst.refused) < 20 {
		inst.refused = append(inst.refused, s)
	}
}

// takeRefused returns the requests refused since the last call.
func (inst *instance) takeRefused() []string {
	inst.mu.Lock()
	defer inst.mu.Unlock()
	r := inst.refused
	inst.refused = nil
	return r
}
