package browser

import (
	"net/http"
	"regexp"
	"strings"
	"testing"
)

const loginPage = `<!doctype html><title>Sign in</title>
<h1>Members</h1>
<form method="post" action="/login">
<label>Username <input name="user"></label>
<label>Password <input name="pass" type="password"></label>
<button type="submit">Sign in</button>
</form>`

// loginSite has a login form; the right password sets a cookie and
// redirects to a page that shows the protected text only with it.
func loginSite(t testing.TB) string {
	srv := site(t, map[string]string{"/": loginPage}, func(mux *http.ServeMux) {
		mux.HandleFunc("/login", func(w http.ResponseWriter, r *http.Request) {
			if r.FormValue("user") == "ada" && r.FormValue("pass") == "lovelace" {
				http.SetCookie(w, &http.Cookie{Name: "session", Value: "ok", Path: "/"})
				http.Redirect(w, r, "/vault", http.StatusSeeOther)
				return
			}
			http.Error(w, "wrong password", http.StatusForbidden)
		})
		mux.HandleFunc("/vault", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html")
			if c, err := r.Cookie("session"); err != nil || c.Value != "ok" {
				http.Redirect(w, r, "/", http.StatusSeeOther)
				return
			}
			w.Write([]byte(`<!doctype html><title>Vault</title><h1>Vault</h1><p>The launch code is 7731-AZURE.</p><a href="/">Home</a>`))
		})
	})
	return srv.URL
}

// refOf finds the ref of the line `role "name" @eN` in a snapshot.
func refOf(t testing.TB, snap, role, name string) string {
	t.Helper()
	m := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(role+` "`+name+`" `) + `(@e\d+)`).FindStringSubmatch(snap)
	if m == nil {
		t.Fatalf("no %s %q in:\n%s", role, name, snap)
	}
	return m[1]
}

// A person's login, done with the tools: the snapshot lists the form's
// fields and button with refs from @e1 in document order, typing and
// submitting logs in, the protected page's text is read, and the refs
// of the login page are refused once the page has navigated.
func TestLoginAndReadProtectedText(t *testing.T) {
	url := loginSite(t)
	b := newTestBrowser(t, Options{})

	snap := mustOK(t, call(t, b, "browser_navigate", map[string]any{"url": url}))
	mustContain(t, snap, "Page: "+url+"/", `Title: "Sign in"`, `heading "Members"`,
		`textbox "Username" @e1`, `textbox "Password" @e2`, `button "Sign in" @e3`, "<untrusted-page-content")

	mustContain(t, mustOK(t, call(t, b, "browser_type", map[string]any{"ref": "@e1", "text": "ada"})), "Typed 3 characters into @e1")
	res := mustOK(t, call(t, b, "browser_type", map[string]any{"ref": "@e2", "text": "lovelace", "submit": true}))
	mustContain(t, res, "The page navigated", "Page: "+url+"/vault", `heading "Vault"`)

	full := mustOK(t, call(t, b, "browser_snapshot", map[string]any{"full": true}))
	mustContain(t, full, `text "The launch code is 7731-AZURE."`, `link "Home" @e1`)

	// @e3 was the login page's button; the vault page has one ref only.
	stale := call(t, b, "browser_click", map[string]any{"ref": "@e3"})
	if !stale.IsError || !strings.Contains(stale.Content, "no such ref") {
		t.Fatalf("a ref not in the latest snapshot was not refused:\n%s", stale.Content)
	}
	// A navigation the page makes by itself makes every ref stale, even
	// one the new page also has.
	mustOK(t, call(t, b, "browser_console", map[string]any{"expression": "location.href = '/'"}))
	mustOK(t, call(t, b, "browser_wait", map[string]any{"text": "Members"}))
	again := call(t, b, "browser_click", map[string]any{"ref": "@e1"})
	if !again.IsError || !strings.Contains(again.Content, "the page has navigated since the snapshot") {
		t.Fatalf("a ref from before a navigation was used:\n%s", again.Content)
	}
}

// Every result names the page's URL and title.
func TestResultsNameThePage(t *testing.T) {
	url := loginSite(t)
	b := newTestBrowser(t, Options{})
	mustOK(t, call(t, b, "browser_navigate", map[string]any{"url": url}))
	for _, c := range []struct {
		name string
		args map[string]any
	}{
		{"browser_snapshot", nil},
		{"browser_scroll", map[string]any{"direction": "down"}},
		{"browser_get_images", nil},
		{"browser_console", nil},
		{"browser_screenshot", nil},
		{"browser_wait", map[string]any{"text": "Members"}},
	} {
		res := mustOK(t, call(t, b, c.name, c.args))
		mustContain(t, res, "Page: "+url+"/", `Title: "Sign in"`)
	}
}
