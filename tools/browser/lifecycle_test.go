package browser

import (
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// fakeTimer is the idle timer's clock: the test fires it.
type fakeTimer struct {
	mu  sync.Mutex
	d   time.Duration
	f   func()
	set int
}

func (c *fakeTimer) AfterFunc(d time.Duration, f func()) func() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.d, c.f = d, f
	c.set++
	mine := c.set
	return func() bool {
		c.mu.Lock()
		defer c.mu.Unlock()
		if c.set == mine {
			c.f = nil
		}
		return true
	}
}

func (c *fakeTimer) fire(t *testing.T) {
	c.mu.Lock()
	f := c.f
	c.f = nil
	c.mu.Unlock()
	if f == nil {
		t.Fatal("no idle timer is set")
	}
	f()
}

// waitGone polls until no process names dir (the browser's processes
// are ending on their own schedule), failing after a deadline.
func waitGone(t *testing.T, dir string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		left := processesUsing(dir)
		if len(left) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("processes of %s still run:\n%s", dir, strings.Join(left, "\n"))
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// The browser starts on first use, is closed after idle_timeout unused
// (every call restarts the count), its processes and profile gone, and a
// later call starts a fresh one.
func TestIdleTimeoutClosesTheBrowser(t *testing.T) {
	url := loginSite(t)
	clock := &fakeTimer{}
	b := newTestBrowser(t, Options{IdleTimeout: 2 * time.Minute, AfterFunc: clock.AfterFunc})
	if b.Running() {
		t.Fatal("the browser started before any call")
	}
	mustOK(t, call(t, b, "browser_navigate", map[string]any{"url": url}))
	profile := b.Profile()
	if !b.Running() || profile == "" || len(processesUsing(profile)) == 0 {
		t.Fatal("no browser runs after a call")
	}
	if clock.d != 2*time.Minute {
		t.Fatalf("idle timer set for %s", clock.d)
	}
	sets := clock.set
	mustOK(t, call(t, b, "browser_snapshot", nil))
	if clock.set != sets+1 {
		t.Fatal("a call did not restart the idle timer")
	}
	clock.fire(t)
	if b.Running() {
		t.Fatal("the browser still runs after the idle timeout")
	}
	waitGone(t, profile)
	if !profileGone(profile) {
		t.Fatalf("the profile %s was not deleted", profile)
	}
	res := mustOK(t, call(t, b, "browser_snapshot", nil))
	if strings.Contains(res, "page state") || b.Profile() == profile {
		t.Fatalf("after an idle close the next call did not start a fresh browser quietly:\n%s", res)
	}
}

// A crashed browser is started again on the next call, which says the
// page state was lost.
func TestCrashedBrowserIsRestarted(t *testing.T) {
	url := loginSite(t)
	b := newTestBrowser(t, Options{})
	mustOK(t, call(t, b, "browser_navigate", map[string]any{"url": url}))
	pid, profile := b.PID(), b.Profile()
	if pid == 0 {
		t.Fatal("no browser pid")
	}
	if err := syscall.Kill(-pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	waitGone(t, profile)
	res := mustOK(t, call(t, b, "browser_navigate", map[string]any{"url": url}))
	mustContain(t, res, "the browser stopped unexpectedly", "page state (open pages, logins, form input) was lost", `button "Sign in"`)
	if b.PID() == pid {
		t.Fatal("the same browser")
	}
	// The note is told once.
	if res := mustOK(t, call(t, b, "browser_snapshot", nil)); strings.Contains(res, "page state") {
		t.Fatalf("the note came again:\n%s", res)
	}
}

// Close ends every process of the browser and deletes its profile; the
// tools then refuse.
func TestCloseEndsTheBrowser(t *testing.T) {
	url := loginSite(t)
	b := newTestBrowser(t, Options{})
	mustOK(t, call(t, b, "browser_navigate", map[string]any{"url": url}))
	profile := b.Profile()
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	waitGone(t, profile)
	if !profileGone(profile) {
		t.Fatalf("the profile %s was not deleted", profile)
	}
	if res := call(t, b, "browser_snapshot", nil); !res.IsError || !strings.Contains(res.Content, "closed") {
		t.Fatalf("a call after Close:\n%s", res.Content)
	}
}
