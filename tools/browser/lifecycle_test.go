package browser

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
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
	clock.mu.Lock()
	stale := clock.f
	clock.mu.Unlock()
	mustOK(t, call(t, b, "browser_snapshot", nil))
	if clock.set != sets+1 {
		t.Fatal("a call did not restart the idle timer")
	}
	// A timer that fired while a call ran, too late to be stopped, does
	// not close the browser the call just used.
	stale()
	if !b.Running() {
		t.Fatal("a stale idle timer closed the browser")
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

// Chromium runs headless, without its own sandbox, without D-Bus, on the
// fresh profile in the temporary directory, in a process group of its
// own. (A wrapper records what hermes starts it with: Chromium rewrites
// its own command line and environment in /proc.)
func TestLaunchedBrowserSettings(t *testing.T) {
	url := loginSite(t)
	tmp, rec := t.TempDir(), t.TempDir()
	wrapper := filepath.Join(rec, "chromium")
	script := "#!/bin/sh\nenv > " + rec + "/env\nprintf '%s\\n' \"$@\" > " + rec + "/args\nexec " + chromium(t) + " \"$@\"\n"
	if err := os.WriteFile(wrapper, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	b := newTestBrowser(t, Options{TempDir: tmp, Found: Found{Path: wrapper}})
	mustOK(t, call(t, b, "browser_navigate", map[string]any{"url": url}))
	pid, profile := b.PID(), b.Profile()
	if !strings.HasPrefix(profile, tmp+"/hermes-browser-") {
		t.Fatalf("profile %s is not a fresh directory in %s", profile, tmp)
	}
	argv, _ := os.ReadFile(filepath.Join(rec, "args"))
	args := strings.Split(string(argv), "\n")
	for _, want := range []string{"--no-sandbox", "--headless", "--user-data-dir=" + profile, "--disable-background-networking",
		"--proxy-bypass-list=<-loopback>", "--force-webrtc-ip-handling-policy=disable_non_proxied_udp"} {
		if !slices.Contains(args, want) {
			t.Errorf("chromium runs without %s: %q", want, args)
		}
	}
	env, _ := os.ReadFile(filepath.Join(rec, "env"))
	for _, want := range []string{"DBUS_SESSION_BUS_ADDRESS=disabled:", "DBUS_SYSTEM_BUS_ADDRESS=disabled:"} {
		if !slices.Contains(strings.Split(string(env), "\n"), want) {
			t.Errorf("chromium's environment lacks %s", want)
		}
	}
	if pgid, _ := syscall.Getpgid(pid); pgid != pid {
		t.Errorf("chromium's process group is %d, not its own", pgid)
	}
}

// A window the page opens is closed at once: it would escape the tab's
// request guard. The console says so.
func TestWindowsThePageOpensAreClosed(t *testing.T) {
	srv := site(t, map[string]string{"/": `<title>Opener</title><button onclick="window.open('/popup')">Open</button>`, "/popup": `<title>Popup</title>`})
	b := newTestBrowser(t, Options{})
	snap := mustOK(t, call(t, b, "browser_navigate", map[string]any{"url": srv.URL}))
	mustOK(t, call(t, b, "browser_click", map[string]any{"ref": refOf(t, snap, "button", "Open")}))
	deadline := time.Now().Add(10 * time.Second)
	for {
		res := mustOK(t, call(t, b, "browser_console", nil))
		if strings.Contains(res, "the page opened a new window for "+srv.URL+"/popup, which was closed") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no note of the closed window:\n%s", res)
		}
		time.Sleep(50 * time.Millisecond)
	}
	targets, err := chromedp.Targets(b.inst.ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, tg := range targets {
		if tg.Type == "page" && strings.Contains(tg.URL, "/popup") {
			t.Fatalf("the popup is still open: %+v", tg)
		}
	}
}

// Chromium starts under a TMPDIR too long for its socket's path.
func TestStartsUnderALongTMPDIR(t *testing.T) {
	long := filepath.Join(t.TempDir(), strings.Repeat("d", 70))
	if err := os.MkdirAll(long, 0o700); err != nil {
		t.Fatal(err)
	}
	t.Setenv("TMPDIR", long)
	b := newTestBrowser(t, Options{TempDir: long})
	mustOK(t, call(t, b, "browser_snapshot", nil))
}
