package e2e

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hermes-go/hermes/internal/testpeer"
	"github.com/hermes-go/hermes/llm"
	"github.com/hermes-go/hermes/llm/llmtest"
)

// members is a site with a login form; the right password opens a page
// whose text only a logged-in visitor sees.
func members(t *testing.T) *httptest.Server {
	mux := http.NewServeMux()
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.Write([]byte(`<!doctype html><title>Sign in</title><form method="post" action="/login">
<label>Username <input name="user"></label><label>Password <input name="pass" type="password"></label>
<button type="submit">Sign in</button></form>`))
	})
	mux.HandleFunc("/login", func(w http.ResponseWriter, r *http.Request) {
		if r.FormValue("user") != "ada" || r.FormValue("pass") != "lovelace" {
			http.Error(w, "no", http.StatusForbidden)
			return
		}
		http.SetCookie(w, &http.Cookie{Name: "s", Value: "ok", Path: "/"})
		http.Redirect(w, r, "/vault", http.StatusSeeOther)
	})
	mux.HandleFunc("/vault", func(w http.ResponseWriter, r *http.Request) {
		if c, err := r.Cookie("s"); err != nil || c.Value != "ok" {
			http.Redirect(w, r, "/", http.StatusSeeOther)
			return
		}
		w.Header().Set("Content-Type", "text/html")
		w.Write([]byte(`<!doctype html><title>Vault</title><h1>Vault</h1><p>The launch code is 7731-AZURE.</p>`))
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

// refIn finds the ref of `role "name" @eN` in a tool result.
func refIn(s, role, name string) string {
	m := regexp.MustCompile(regexp.QuoteMeta(role+` "`+name+`" `) + `(@e\d+)`).FindStringSubmatch(s)
	if m == nil {
		return ""
	}
	return m[1]
}

func browserCall(id, name string, args map[string]any) llmtest.Reply {
	b, _ := json.Marshal(args)
	return llmtest.Reply{ToolCalls: []llm.ToolCall{{ID: id, Name: name, Arguments: string(b)}}}
}

// The model logs in to a site and reads what only a member sees, with
// the browser tools of a one-shot run (--toolsets browser): it reads the
// refs of the form's fields from the snapshot, types into them, submits,
// and quotes the protected text from the next snapshot.
func TestBrowserLogsInAndReadsProtectedText(t *testing.T) {
	testpeer.Chromium(t)
	site := members(t)
	home, work := t.TempDir(), t.TempDir()
	srv := llmtest.NewServer(t)
	srv.Handle(func(r *llmtest.Request) llmtest.Reply {
		results := toolResults(r)
		if len(results) == 0 {
			if strings.Contains(r.Messages()[len(r.Messages())-1].Content, "launch code") {
				return browserCall("c1", "browser_navigate", map[string]any{"url": site.URL})
			}
			return llmtest.Reply{Text: "A title"}
		}
		last := results[len(results)-1]
		switch len(results) {
		case 1:
			return browserCall("c2", "browser_type", map[string]any{"ref": refIn(last, "textbox", "Username"), "text": "ada"})
		case 2:
			return browserCall("c3", "browser_type", map[string]any{"ref": refIn(results[0], "textbox", "Password"), "text": "lovelace", "submit": true})
		case 3:
			return browserCall("c4", "browser_snapshot", map[string]any{"full": true})
		}
		if m := regexp.MustCompile(`launch code is ([\w-]+)`).FindStringSubmatch(last); m != nil {
			return llmtest.Reply{Text: "The code is " + m[1]}
		}
		return llmtest.Reply{Text: "I could not find it:\n" + last}
	})
	tmp := t.TempDir()
	r := hermesEnv(t, []string{"HERMES_WEB_ALLOW_PRIVATE=1", "TMPDIR=" + tmp}, home, work,
		"-z", "find the launch code on "+site.URL, "--toolsets", "browser", "--provider", "custom", "--base-url", srv.URL(), "--model", "m")
	if r.code != 0 || !strings.Contains(r.stdout, "The code is 7731-AZURE") {
		t.Fatalf("exit %d\nstdout %s\nstderr %s", r.code, r.stdout, r.stderr)
	}
	// The conversation's end closed its browser and deleted its profile.
	if left, _ := filepath.Glob(filepath.Join(tmp, "hermes-browser-*")); len(left) != 0 {
		t.Fatalf("profiles left behind: %v", left)
	}
	if left := processesNaming(tmp); len(left) != 0 {
		t.Fatalf("browser processes left behind:\n%s", strings.Join(left, "\n"))
	}
	reqs := srv.Requests()
	first := toolResults(reqs[len(reqs)-1])[0]
	if !contains(first, `textbox "Username" @e1`, `textbox "Password" @e2`, `button "Sign in" @e3`, "Page: "+site.URL+"/") {
		t.Fatalf("first snapshot:\n%s", first)
	}
}

// Without web.allow_private the browser refuses the local site, and the
// model reads why.
func TestBrowserRefusesLocalSiteWithoutAllowPrivate(t *testing.T) {
	testpeer.Chromium(t)
	site := members(t)
	home, work := t.TempDir(), t.TempDir()
	srv := llmtest.NewServer(t)
	srv.Handle(func(r *llmtest.Request) llmtest.Reply {
		if res := toolResults(r); len(res) > 0 {
			return llmtest.Reply{Text: "Result: " + res[0]}
		}
		if strings.Contains(r.Messages()[len(r.Messages())-1].Content, "open") {
			return browserCall("c1", "browser_navigate", map[string]any{"url": site.URL})
		}
		return llmtest.Reply{Text: "A title"}
	})
	r := hermesEnv(t, []string{"TMPDIR=" + t.TempDir()}, home, work,
		"-z", "open "+site.URL, "--toolsets", "browser", "--provider", "custom", "--base-url", srv.URL(), "--model", "m")
	if r.code != 0 || !contains(r.stdout, "refused "+site.URL, "127.0.0.1 is a loopback address", "web.allow_private") {
		t.Fatalf("exit %d\nstdout %s\nstderr %s", r.code, r.stdout, r.stderr)
	}
}

// A SIGKILL of hermes leaves no Chromium process behind: the browser runs
// in its own process group and dies with a parent-death signal.
func TestNoBrowserProcessOutlivesAKilledHermes(t *testing.T) {
	testpeer.Chromium(t)
	site := members(t)
	home, work, tmp := t.TempDir(), t.TempDir(), t.TempDir()
	srv := llmtest.NewServer(t)
	navigated := make(chan struct{})
	hold := make(chan struct{})
	t.Cleanup(func() { close(hold) })
	srv.Handle(func(r *llmtest.Request) llmtest.Reply {
		if len(toolResults(r)) > 0 {
			close(navigated)
			<-hold // hermes waits here, its browser running, until killed
			return llmtest.Reply{Text: "done"}
		}
		if strings.Contains(r.Messages()[len(r.Messages())-1].Content, "open") {
			return browserCall("c1", "browser_navigate", map[string]any{"url": site.URL})
		}
		return llmtest.Reply{Text: "A title"}
	})
	cmd := exec.Command(hermesBin, "-z", "open "+site.URL, "--toolsets", "browser", "--provider", "custom", "--base-url", srv.URL(), "--model", "m")
	cmd.Dir = work
	cmd.Env = []string{"HOME=" + home, "HERMES_HOME=" + home, "PATH=" + os.Getenv("PATH"), "HERMES_LOCAL_PORTS=none", "HERMES_WEB_ALLOW_PRIVATE=1", "TMPDIR=" + tmp}
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	select {
	case <-navigated:
	case <-time.After(60 * time.Second):
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatalf("the page was never loaded:\n%s", out.String())
	}
	profiles, _ := filepath.Glob(filepath.Join(tmp, "hermes-browser-*"))
	if len(profiles) != 1 {
		t.Fatalf("profiles %v", profiles)
	}
	if n := len(processesNaming(profiles[0])); n < 2 {
		t.Fatalf("%d browser processes run with the profile, want the browser and its helpers", n)
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()
	deadline := time.Now().Add(15 * time.Second)
	for {
		left := processesNaming(profiles[0])
		if len(left) == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("browser processes outlived hermes:\n%s", strings.Join(left, "\n"))
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// processesNaming lists the live processes whose command line holds s.
func processesNaming(s string) []string {
	var out []string
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil || !strings.Contains(string(b), s) {
			continue
		}
		if st, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat")); err == nil && strings.Contains(string(st), ") Z ") {
			continue // a zombie is dead, waiting for its parent to read its status
		}
		out = append(out, e.Name()+": "+strings.ReplaceAll(string(b), "\x00", " "))
	}
	return out
}

// hermes browser status says which browser would be used, or why none.
func TestBrowserStatus(t *testing.T) {
	chromium := testpeer.Chromium(t)
	home := t.TempDir()
	r := hermesEnv(t, []string{"CHROME_PATH=" + chromium}, home, home, "browser", "status", "--json")
	var st struct {
		Available bool   `json:"available"`
		Path      string `json:"path"`
		Source    string `json:"source"`
	}
	if r.code != 0 || json.Unmarshal([]byte(r.stdout), &st) != nil || !st.Available || st.Path != chromium || st.Source != "CHROME_PATH" {
		t.Fatalf("exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	r = hermesEnv(t, []string{"PATH=/nonexistent"}, home, home, "browser", "status")
	if r.code != 1 || !contains(r.stdout, "browser         none: no Chromium or Chrome found", "apt-get install chromium") {
		t.Fatalf("exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
}
