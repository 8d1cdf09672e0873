package browser

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"
)

// maxConsole bounds the console lines kept between two browser_console
// calls.
const maxConsole = 200

// listen follows the tab's events for as long as it lives: requests to
// guard, navigations that make refs stale, dialogs, console messages and
// page errors, and windows the page opens (closed: they would escape the
// tab's request guard).
func (b *Browser) listen(inst *instance) {
	ctx := inst.ctx
	// Subscribe to everything first, here (Events subscribes when it
	// returns), so that nothing happens unseen: a request paused before
	// its reader listened would never be answered.
	paused, pausedBrowser := b.pausedRequests(ctx)
	navigated := chromedp.Events(ctx, page.FrameNavigated)
	opening := chromedp.Events(ctx, page.JavascriptDialogOpening)
	closed := chromedp.Events(ctx, page.JavascriptDialogClosed)
	console := chromedp.Events(ctx, runtime.ConsoleAPICalled)
	thrown := chromedp.Events(ctx, runtime.ExceptionThrown)
	opened := chromedp.Events(ctx, page.WindowOpen)
	var self target.ID
	if c := chromedp.FromContext(ctx); c != nil && c.Target != nil {
		self = c.Target.TargetID
	}
	created := chromedp.BrowserEvents(ctx, target.TargetCreated)

	go b.guardRequests(inst, paused, pausedBrowser)
	go func() {
		for ev, err := range navigated {
			if err != nil {
				return
			}
			if ev.Frame != nil && ev.Frame.ParentID == "" {
				inst.mu.Lock()
				inst.nav++
				inst.mu.Unlock()
			}
		}
	}()
	go func() {
		for ev, err := range opening {
			if err != nil {
				return
			}
			inst.mu.Lock()
			inst.dialog = &ev
			close(inst.dialogCh)
			inst.mu.Unlock()
		}
	}()
	go func() {
		for _, err := range closed {
			if err != nil {
				return
			}
			inst.mu.Lock()
			inst.dialog = nil
			inst.dialogCh = make(chan struct{})
			inst.mu.Unlock()
		}
	}()
	go func() {
		for ev, err := range console {
			if err != nil {
				return
			}
			var parts []string
			for _, a := range ev.Args {
				parts = append(parts, remoteText(a))
			}
			inst.addConsole(fmt.Sprintf("console.%s: %s", ev.Type, strings.Join(parts, " ")))
		}
	}()
	go func() {
		for ev, err := range thrown {
			if err != nil {
				return
			}
			d := ev.ExceptionDetails
			if d == nil {
				continue
			}
			text := d.Text
			if d.Exception != nil && d.Exception.Description != "" {
				text = d.Exception.Description
			}
			inst.addConsole(fmt.Sprintf("page error: %s (%s:%d)", firstLine(text), d.URL, d.LineNumber+1))
		}
	}()
	go func() {
		for ev, err := range opened {
			if err != nil {
				return
			}
			inst.addConsole(fmt.Sprintf("hermes: the page opened a new window for %s, which was closed; open it with browser_navigate", ev.URL))
		}
	}()
	go func() {
		for ev, err := range created {
			if err != nil {
				return
			}
			if info := ev.TargetInfo; info != nil && self != "" && info.OpenerID == self && info.TargetID != self {
				_, _ = chromedp.CallBrowser(ctx, target.CloseTarget, target.CloseTargetParams{TargetID: info.TargetID})
			}
		}
	}()
}

func (inst *instance) addConsole(s string) {
	inst.mu.Lock()
	defer inst.mu.Unlock()
	if len(inst.console) >= maxConsole {
		inst.dropped++
		return
	}
	inst.console = append(inst.console, s)
}

// takeConsole returns the console lines since the last call.
func (inst *instance) takeConsole() (lines []string, dropped int) {
	inst.mu.Lock()
	defer inst.mu.Unlock()
	lines, dropped = inst.console, inst.dropped
	inst.console, inst.dropped = nil, 0
	return lines, dropped
}

// openDialog returns the dialog open now, if any.
func (inst *instance) openDialog() *page.EventJavascriptDialogOpening {
	inst.mu.Lock()
	defer inst.mu.Unlock()
	return inst.dialog
}

// remoteText renders a console argument.
func remoteText(o *runtime.RemoteObject) string {
	if o == nil {
		return ""
	}
	if len(o.Value) > 0 {
		var s string
		if json.Unmarshal(o.Value, &s) == nil {
			return s
		}
		return string(o.Value)
	}
	if o.UnserializableValue != "" {
		return string(o.UnserializableValue)
	}
	if o.Description != "" {
		return o.Description
	}
	return string(o.Type)
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}
