package browser

import (
	"bufio"
	"os/exec"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"
)

// userBrowser starts a Chromium the way a user would for browser.cdp_url
// (--remote-debugging-port) and returns its DevTools address.
func userBrowser(t *testing.T) string {
	cmd := exec.Command(chromium(t), "--headless", "--no-sandbox", "--remote-debugging-port=0", "--user-data-dir="+t.TempDir(), "about:blank")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	stderr, _ := cmd.StderrPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		cmd.Wait()
	})
	found := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			if m := regexp.MustCompile(`DevTools listening on (ws://\S+)`).FindStringSubmatch(sc.Text()); m != nil {
				found <- m[1]
			}
		}
	}()
	select {
	case u := <-found:
		return u
	case <-time.After(30 * time.Second):
		t.Fatal("the browser did not say where it listens")
	}
	return ""
}

// browser.cdp_url attaches to a running browser: the tools work in a new
// tab of it, guarded the same way, and closing leaves that browser (the
// user's) running.
func TestAttachToARunningBrowser(t *testing.T) {
	ws := userBrowser(t)
	inner, hits := internal(t)
	srv := site(t, map[string]string{"/": `<title>Attached</title><h1>Hello</h1><img src="` + inner.URL + `/x.png" alt="x">`})
	b := newTestBrowser(t, Options{Found: Found{CDPURL: ws, Source: "browser.cdp_url"}, Guard: onlyPage(t, srv)})
	res := mustOK(t, call(t, b, "browser_navigate", map[string]any{"url": srv.URL}))
	mustContain(t, res, `heading "Hello"`, "Blocked request: refused "+inner.URL+"/x.png")
	if hits.Load() != 0 {
		t.Fatal("the private service was reached")
	}
	if b.Profile() != "" {
		t.Fatalf("an attached browser got a profile directory: %s", b.Profile())
	}
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	// The user's browser still runs and answers.
	b2 := newTestBrowser(t, Options{Found: Found{CDPURL: ws}})
	if res := mustOK(t, call(t, b2, "browser_snapshot", nil)); strings.Contains(res, "failed") {
		t.Fatalf("the user's browser is gone:\n%s", res)
	}
}
