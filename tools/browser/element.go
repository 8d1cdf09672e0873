package browser

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/dom"
	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

// StaleRefError is a ref from an older snapshot, or none at all.
type StaleRefError struct{ Ref, Why string }

func (e *StaleRefError) Error() string {
	return fmt.Sprintf("%s: %s; take a new browser_snapshot and use a ref from it", e.Ref, e.Why)
}

// lookup returns the backend node of a ref from the latest snapshot of
// the page as it is now.
func (inst *instance) lookup(ref string) (cdp.BackendNodeID, error) {
	ref = strings.TrimPrefix(strings.TrimSpace(ref), "@")
	inst.mu.Lock()
	defer inst.mu.Unlock()
	if inst.refs == nil {
		return 0, &StaleRefError{Ref: "@" + ref, Why: "there is no snapshot of this page yet"}
	}
	if inst.nav != inst.refNav {
		return 0, &StaleRefError{Ref: "@" + ref, Why: "the page has navigated since the snapshot it came from, so its refs are stale"}
	}
	id, ok := inst.refs[ref]
	if !ok {
		return 0, &StaleRefError{Ref: "@" + ref, Why: "no such ref in the latest snapshot (refs are renumbered at every snapshot)"}
	}
	return id, nil
}

// setRefs makes snap's refs the current ones, for the page as it is now.
func (inst *instance) setRefs(snap snapshot) {
	inst.mu.Lock()
	inst.refs, inst.refNav = snap.refs, inst.nav
	inst.mu.Unlock()
}

// dropRefs discards the refs (a navigation the tool made).
func (inst *instance) dropRefs() {
	inst.mu.Lock()
	inst.refs = nil
	inst.mu.Unlock()
}

// callOn runs a JavaScript function with the element as this, its result
// decoded into out (nil: ignored).
func callOn(ctx context.Context, id cdp.BackendNodeID, fn string, out any, args ...any) error {
	res, err := chromedp.Call(ctx, dom.ResolveNode, dom.ResolveNodeParams{BackendNodeID: id})
	if err != nil || res.Object == nil {
		return errors.New("the element is no longer in the page; take a new browser_snapshot")
	}
	var cargs []*runtime.CallArgument
	for _, a := range args {
		b, err := json.Marshal(a)
		if err != nil {
			return err
		}
		cargs = append(cargs, &runtime.CallArgument{Value: b})
	}
	byValue, gesture, await := true, true, true
	r, err := chromedp.Call(ctx, runtime.CallFunctionOn, runtime.CallFunctionOnParams{
		FunctionDeclaration: fn, ObjectID: res.Object.ObjectID, Arguments: cargs,
		ReturnByValue: &byValue, UserGesture: &gesture, AwaitPromise: &await,
	})
	_, _ = chromedp.Call(ctx, runtime.ReleaseObject, runtime.ReleaseObjectParams{ObjectID: res.Object.ObjectID})
	if err != nil {
		return err
	}
	if r.ExceptionDetails != nil {
		msg := r.ExceptionDetails.Text
		if r.ExceptionDetails.Exception != nil && r.ExceptionDetails.Exception.Description != "" {
			msg = firstLine(r.ExceptionDetails.Exception.Description)
		}
		return errors.New(msg)
	}
	if out != nil && r.Result != nil && len(r.Result.Value) > 0 {
		return json.Unmarshal(r.Result.Value, out)
	}
	return nil
}

// click scrolls the element into view and clicks its centre with the
// mouse, as a person would; an element with no box is clicked from
// script.
func click(ctx context.Context, id cdp.BackendNodeID) error {
	var box struct {
		X, Y    float64
		Visible bool
	}
	const where = `function() {
		this.scrollIntoView({block: 'center', inline: 'center'});
		const r = this.getBoundingClientRect();
		return {X: r.left + r.width/2, Y: r.top + r.height/2, Visible: r.width > 0 && r.height > 0};
	}`
	if err := callOn(ctx, id, where, &box); err != nil {
		return err
	}
	if !box.Visible {
		return callOn(ctx, id, `function() { this.click(); }`, nil)
	}
	for _, t := range []input.DispatchMouseEventType{input.DispatchMouseEventTypeMouseMoved, input.DispatchMouseEventTypeMousePressed, input.DispatchMouseEventTypeMouseReleased} {
		p := input.DispatchMouseEventParams{Type: t, X: box.X, Y: box.Y}
		if t != input.DispatchMouseEventTypeMouseMoved {
			p.Button, p.ClickCount = input.MouseButtonLeft, 1
		}
		if _, err := chromedp.Call(ctx, input.DispatchMouseEvent, p); err != nil {
			return err
		}
	}
	return nil
}

// typeInto focuses a field, clears it and types text as the keyboard
// would insert it.
func typeInto(ctx context.Context, id cdp.BackendNodeID, text string) error {
	const clear = `function() {
		this.scrollIntoView({block: 'center'});
		this.focus();
		if ('value' in this && typeof this.select === 'function') {
			this.select();
		} else if (this.isContentEditable) {
			const r = document.createRange(); r.selectNodeContents(this);
			const s = window.getSelection(); s.removeAllRanges(); s.addRange(r);
		} else {
			throw new Error('the element is not a text field');
		}
		if (document.activeElement !== this && !this.contains(document.activeElement)) {
			throw new Error('the element cannot take the focus');
		}
	}`
	if err := callOn(ctx, id, clear, nil); err != nil {
		return err
	}
	// Delete the selection (the old text), then insert the new.
	if err := chromedp.Do(ctx, chromedp.KeyEvent(kb.Delete)); err != nil {
		return err
	}
	if text == "" {
		return nil
	}
	_, err := chromedp.Call(ctx, input.InsertText, input.InsertTextParams{Text: text})
	return err
}

// selectOptions picks a <select>'s options by value or visible text.
func selectOptions(ctx context.Context, id cdp.BackendNodeID, values []string) ([]string, error) {
	const pick = `function(want) {
		if (!(this instanceof HTMLSelectElement)) throw new Error('the element is not a select (a drop-down list)');
		const picked = [], missing = [];
		for (const w of want) {
			const o = Array.from(this.options).find(o => o.value === w || o.label.trim() === w.trim() || o.text.trim() === w.trim());
			if (!o) { missing.push(w); continue; }
			picked.push(o);
		}
		if (missing.length) throw new Error('no option ' + missing.map(m => JSON.stringify(m)).join(', ') + '; the options are ' + Array.from(this.options).map(o => JSON.stringify(o.text.trim())).join(', '));
		if (!this.multiple && picked.length > 1) throw new Error('the list takes one value');
		for (const o of this.options) o.selected = picked.includes(o);
		this.dispatchEvent(new Event('input', {bubbles: true}));
		this.dispatchEvent(new Event('change', {bubbles: true}));
		return picked.map(o => o.text.trim());
	}`
	var got []string
	err := callOn(ctx, id, pick, &got, values)
	return got, err
}

// key maps a key name to what chromedp's keyboard sends.
func key(name string) (string, bool) {
	switch strings.ToLower(strings.TrimSpace(name)) {
	case "enter", "return":
		return kb.Enter, true
	case "tab":
		return kb.Tab, true
	case "escape", "esc":
		return kb.Escape, true
	case "backspace":
		return kb.Backspace, true
	case "delete":
		return kb.Delete, true
	case "space":
		return " ", true
	case "arrowdown", "down":
		return kb.ArrowDown, true
	case "arrowup", "up":
		return kb.ArrowUp, true
	case "arrowleft", "left":
		return kb.ArrowLeft, true
	case "arrowright", "right":
		return kb.ArrowRight, true
	case "pagedown":
		return kb.PageDown, true
	case "pageup":
		return kb.PageUp, true
	case "home":
		return kb.Home, true
	case "end":
		return kb.End, true
	}
	return "", false
}

// press sends one key, by name (Enter, Tab, Escape, ArrowDown, ...) or a
// single character.
func press(ctx context.Context, name string) error {
	k, ok := key(name)
	if !ok {
		if r := []rune(name); len(r) == 1 {
			k = name
		} else {
			return fmt.Errorf("unknown key %q: use Enter, Tab, Escape, Backspace, Delete, Space, ArrowUp/Down/Left/Right, PageUp, PageDown, Home, End or one character", name)
		}
	}
	return chromedp.Do(ctx, chromedp.KeyEvent(k))
}
