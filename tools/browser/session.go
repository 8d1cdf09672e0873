package browser

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net/netip"
	"os"
	"sync"
	"sync/atomic"
	"time"

	cdpbrowser "github.com/chromedp/cdproto/browser"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/fetch"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/hermes-go/hermes/internal/netguard"
	"github.com/hermes-go/hermes/llm"
)

// DefaultIdleTimeout closes a browser nobody used for this long.
const DefaultIdleTimeout = 120 * time.Second

// Options configure a conversation's browser.
type Options struct {
	// Found is the browser to start or attach to (Find).
	Found Found
	// Headless runs Chromium without a window (default true; a visible
	// window needs a display).
	Headless *bool
	// Guard decides which addresses pages may reach: the web tools'
	// (web.allow_private). Nil refuses private addresses.
	Guard *netguard.Guard
	// Workdir is the workspace: file:// pages must be inside it,
	// downloads land in it, uploads come from it.
	Workdir string
	// TempDir holds the profiles and saved snapshots (default os.TempDir()).
	TempDir string
	// IdleTimeout closes the browser after this long unused (default
	// DefaultIdleTimeout; negative: never).
	IdleTimeout time.Duration
	// AfterFunc is the idle timer's clock (default time.AfterFunc); tests
	// fire it themselves.
	AfterFunc func(d time.Duration, f func()) (stop func() bool)
	// Redact masks secrets in what the tools return.
	Redact func(string) string
	// Vision answers browser_vision; nil leaves the tool out.
	Vision      llm.Client
	VisionModel string
	// MaxSnapshotChars cuts a snapshot (default 15,000 characters).
	MaxSnapshotChars int
}

// Browser is one conversation's browser: started on first use, closed
// after IdleTimeout unused or by Close, restarted (with a note) after a
// crash. Its tools run one at a time.
type Browser struct {
	o Options

	mu     sync.Mutex // held by each tool call
	inst   *instance
	lost   string // why the last browser ended unexpectedly, told on the next call
	idle   func() bool
	idleN  int // which idle timer is current: one that fired late is stale
	closed bool
	snaps  atomic.Int32 // snapshots saved, for their file names (a step may outlive its call)
}

// New returns the browser of a conversation; nothing starts until a tool
// is called.
func New(o Options) *Browser {
	if o.Guard == nil {
		o.Guard = &netguard.Guard{}
	}
	o.TempDir = cmp.Or(o.TempDir, os.TempDir())
	o.IdleTimeout = cmp.Or(o.IdleTimeout, DefaultIdleTimeout)
	o.MaxSnapshotChars = cmp.Or(o.MaxSnapshotChars, 15_000)
	if o.AfterFunc == nil {
		o.AfterFunc = func(d time.Duration, f func()) func() bool { return time.AfterFunc(d, f).Stop }
	}
	if o.Redact == nil {
		o.Redact = func(s string) string { return s }
	}
	return &Browser{o: o}
}

// instance is one running browser and the state of its tab.
type instance struct {
	ctx        context.Context // the tab's
	cancel     context.CancelFunc
	allocClose context.CancelFunc
	profile    string
	proxy      *proxy // nil when attached over browser.cdp_url
	pid        int
	gone       chan struct{} // closed when the browser ends, whoever ended it
	closing    bool          // ended by us: not a crash

	mu       sync.Mutex
	refs     map[string]cdp.BackendNodeID
	refNav   int // nav when refs were made
	nav      int // main-frame navigations so far
	console  []string
	dropped  int
	refused  []string
	dialog   *page.EventJavascriptDialogOpening
	dialogCh chan struct{} // closed when a dialog opens
}

// ErrClosed is returned by a call after Close.
var ErrClosed = errors.New("browser: closed with its conversation")

// acquire locks the browser for one call and returns its running
// instance, starting one when none runs. note tells of a browser lost
// since the last call.
func (b *Browser) acquire(ctx context.Context) (inst *instance, note string, release func(), err error) {
	b.mu.Lock()
	if b.closed {
		b.mu.Unlock()
		return nil, "", nil, ErrClosed
	}
	if b.idle != nil {
		b.idle()
		b.idle = nil
	}
	release = func() {
		if b.inst != nil && b.o.IdleTimeout > 0 {
			b.idleN++
			n := b.idleN
			b.idle = b.o.AfterFunc(b.o.IdleTimeout, func() { b.idleClose(n) })
		}
		b.mu.Unlock()
	}
	if b.inst != nil && !b.inst.alive(ctx) {
		b.lost = "the browser stopped unexpectedly (it crashed or was killed)"
		b.stop(b.inst)
		b.inst = nil
	}
	if b.lost != "" {
		note = fmt.Sprintf("Note: %s; a new browser was started, and the page state (open pages, logins, form input) was lost.", b.lost)
		b.lost = ""
	}
	if b.inst == nil {
		if b.inst, err = b.start(ctx); err != nil {
			release()
			return nil, "", nil, err
		}
	}
	return b.inst, note, release, nil
}

// alive reports whether the browser still answers: its end may not have
// been noticed yet when the call comes.
func (inst *instance) alive(ctx context.Context) bool {
	select {
	case <-inst.gone:
		return false
	default:
	}
	ctx, cancel := context.WithTimeout(inst.ctx, 5*time.Second)
	defer cancel()
	_, err := chromedp.CallBrowser(ctx, cdpbrowser.GetVersion, cdp.Empty{})
	return err == nil
}

// idleClose ends a browser nobody used for IdleTimeout, unless a call
// came after timer n was set (it fired while that call ran).
func (b *Browser) idleClose(n int) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if n != b.idleN || b.idle == nil {
		return
	}
	b.idle = nil
	if b.inst != nil {
		b.stop(b.inst)
		b.inst = nil
	}
}

// Running reports whether a browser is running now.
func (b *Browser) Running() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.inst != nil
}

// PID is the running browser's process id (0 when none runs, or when
// attached over browser.cdp_url).
func (b *Browser) PID() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.inst == nil {
		return 0
	}
	return b.inst.pid
}

// Profile is the running browser's profile directory ("" when none).
func (b *Browser) Profile() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.inst == nil {
		return ""
	}
	return b.inst.profile
}

// Close ends the browser and deletes its profile; later calls fail.
func (b *Browser) Close() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.closed = true
	if b.idle != nil {
		b.idle()
		b.idle = nil
	}
	if b.inst == nil {
		return nil
	}
	err := b.stop(b.inst)
	b.inst = nil
	return err
}

// start launches (or attaches to) a browser, opens its tab and installs
// the request guard and the event listeners before any page loads.
func (b *Browser) start(ctx context.Context) (*instance, error) {
	inst := &instance{gone: make(chan struct{}), dialogCh: make(chan struct{})}
	var proxyAddr string
	if b.o.Found.CDPURL == "" {
		p, err := newProfile(b.o.TempDir)
		if err != nil {
			return nil, err
		}
		inst.profile = p
		if inst.proxy, err = startProxy(b.o.Guard, inst.noteRefused); err != nil {
			os.RemoveAll(p)
			return nil, err
		}
		proxyAddr = inst.proxy.addr()
	}
	headless := b.o.Headless == nil || *b.o.Headless
	// The browser lives until Close, not until this call's context ends.
	actx, acancel := allocator(context.WithoutCancel(ctx), b.o.Found.Path, b.o.Found.CDPURL, inst.profile, proxyAddr, headless)
	tctx, tcancel := chromedp.NewContext(actx)
	inst.ctx, inst.cancel, inst.allocClose = tctx, tcancel, acancel
	fail := func(err error) (*instance, error) {
		b.stop(inst)
		if b.o.Found.CDPURL != "" {
			return nil, fmt.Errorf("browser: attaching to %s: %w", b.o.Found.CDPURL, err)
		}
		return nil, fmt.Errorf("browser: starting %s: %w", b.o.Found.Path, err)
	}
	// A browser that does not come up in 30 s, or a call given up
	// meanwhile, ends the start.
	timer := time.AfterFunc(30*time.Second, tcancel)
	stop := context.AfterFunc(ctx, tcancel)
	// The first call starts the browser and attaches to its tab.
	err := chromedp.Do(tctx)
	timer.Stop()
	stop()
	if err != nil {
		return fail(err)
	}
	if c := chromedp.FromContext(tctx); c != nil && c.Browser != nil {
		if p := c.Browser.Process(); p != nil {
			inst.pid = p.Pid
		}
	}
	go func() {
		<-tctx.Done()
		close(inst.gone)
	}()
	b.listen(inst)
	if err := b.setup(inst); err != nil {
		return fail(err)
	}
	return inst, nil
}

// setup turns on what the tools rely on: every request of the tab paused
// for the guard, downloads into the workspace, dialogs and console kept.
func (b *Browser) setup(inst *instance) error {
	ctx := inst.ctx
	enable := chromedp.CallBrowser[fetch.EnableParams, cdp.Empty]
	if !b.wholeBrowser() {
		enable = chromedp.Call[fetch.EnableParams, cdp.Empty]
	}
	if _, err := enable(ctx, fetch.Enable, fetch.EnableParams{Patterns: []*fetch.RequestPattern{{URLPattern: "*"}}}); err != nil {
		return fmt.Errorf("request interception: %w", err)
	}
	if _, err := chromedp.Call(ctx, runtime.Enable, cdp.Empty{}); err != nil {
		return fmt.Errorf("console: %w", err)
	}
	if b.o.Workdir != "" && b.o.Found.CDPURL == "" {
		if _, err := chromedp.CallBrowser(ctx, cdpbrowser.SetDownloadBehavior, cdpbrowser.SetDownloadBehaviorParams{
			Behavior: cdpbrowser.SetDownloadBehaviorBehaviorAllow, DownloadPath: b.o.Workdir,
		}); err != nil {
			return fmt.Errorf("downloads: %w", err)
		}
	}
	return nil
}

// wholeBrowser reports whether the guard pauses the requests of the
// whole browser (windows, workers and service workers included): a
// browser of its own. A browser the user started (browser.cdp_url) has
// the user's own tabs, which are left alone: only the tab's requests are
// paused.
func (b *Browser) wholeBrowser() bool { return b.o.Found.CDPURL == "" }

// stop ends an instance: its tab, then the browser (a launched one is
// killed with its whole process group), then its profile directory.
func (b *Browser) stop(inst *instance) error {
	inst.mu.Lock()
	inst.closing = true
	inst.mu.Unlock()
	inst.cancel()
	inst.allocClose()
	killGroup(inst.pid)
	if inst.proxy != nil {
		inst.proxy.close()
	}
	if inst.profile == "" {
		return nil
	}
	// Helpers may still be writing into the profile for a moment.
	var err error
	for range 50 {
		if err = os.RemoveAll(inst.profile); err == nil {
			return nil
		}
		time.Sleep(20 * time.Millisecond)
	}
	return fmt.Errorf("browser: removing the profile %s: %w", inst.profile, err)
}

// allowAddr reports whether the guard lets a page reach ip on port.
func (b *Browser) checkAddr(ip netip.Addr, port uint16) error {
	ap := netip.AddrPortFrom(ip.Unmap().WithZone(""), port)
	for _, a := range b.o.Guard.AllowAddrs {
		if a == ap {
			return nil
		}
	}
	return b.o.Guard.Check(ap.Addr())
}
