package browser

import (
	"bytes"
	"encoding/base64"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/hermes-go/hermes/llm"
	"github.com/hermes-go/hermes/llm/llmtest"
)

var pngMagic = []byte("\x89PNG\r\n\x1a\n")

// browser_screenshot saves a PNG; browser_vision sends one to the vision
// model with the question, and returns its answer as page content.
func TestScreenshotAndVision(t *testing.T) {
	srv := site(t, map[string]string{"/": `<title>Chart</title><h1 style="color:red">Sales</h1>`})
	vision := llmtest.NewClient(t)
	vision.Handle(func(r *llm.Request) llmtest.Reply { return llmtest.Reply{Text: "A red heading reads Sales."} })
	b := newTestBrowser(t, Options{Vision: vision, VisionModel: "vl"})
	mustOK(t, call(t, b, "browser_navigate", map[string]any{"url": srv.URL}))

	shot := mustOK(t, call(t, b, "browser_screenshot", nil))
	m := regexp.MustCompile(`Screenshot saved: (\S+\.png)`).FindStringSubmatch(shot)
	if m == nil {
		t.Fatalf("no path:\n%s", shot)
	}
	if png, err := os.ReadFile(m[1]); err != nil || !bytes.HasPrefix(png, pngMagic) {
		t.Fatalf("%s is no PNG: %v", m[1], err)
	}

	res := mustOK(t, call(t, b, "browser_vision", map[string]any{"question": "What colour is the heading?"}))
	mustContain(t, res, "A red heading reads Sales.", "<untrusted-page-content", `Title: "Chart"`)
	reqs := vision.Requests()
	if len(reqs) != 1 || reqs[0].Model != "vl" {
		t.Fatalf("vision requests %+v", reqs)
	}
	user := reqs[0].Messages[len(reqs[0].Messages)-1]
	if user.Content != "What colour is the heading?" || len(user.Images) != 1 {
		t.Fatalf("vision request %+v", user)
	}
	if img, err := base64.StdEncoding.DecodeString(user.Images[0].Data); err != nil || !bytes.HasPrefix(img, pngMagic) {
		t.Fatalf("the vision model got no PNG screenshot: %v", err)
	}
}

// browser_get_images lists the page's images; browser_back returns to
// the previous page; browser_press sends keys to the focused field.
func TestImagesBackAndPress(t *testing.T) {
	srv := site(t, map[string]string{
		"/":        `<title>Home</title><img src="/logo.png" alt="Company logo" width="10" height="10"><a href="/search">Search</a>`,
		"/search":  `<title>Search</title><form action="/results"><input name="q" aria-label="Query"></form>`,
		"/results": `<title>Results</title><h1>Results</h1>`,
	})
	b := newTestBrowser(t, Options{})
	snap := mustOK(t, call(t, b, "browser_navigate", map[string]any{"url": srv.URL}))
	mustContain(t, mustOK(t, call(t, b, "browser_get_images", nil)), srv.URL+`/logo.png  alt="Company logo"`)

	res := mustOK(t, call(t, b, "browser_click", map[string]any{"ref": refOf(t, snap, "link", "Search")}))
	mustContain(t, res, "The page navigated", `Title: "Search"`)
	mustContain(t, mustOK(t, call(t, b, "browser_back", nil)), `Title: "Home"`, `link "Search" @e1`)

	snap = mustOK(t, call(t, b, "browser_navigate", map[string]any{"url": srv.URL + "/search"}))
	mustOK(t, call(t, b, "browser_type", map[string]any{"ref": refOf(t, snap, "textbox", "Query"), "text": "hermes"}))
	res = mustOK(t, call(t, b, "browser_press", map[string]any{"key": "Enter"}))
	mustContain(t, res, "Pressed Enter.", "The page navigated", "/results?q=hermes", `heading "Results"`)

	bad := call(t, b, "browser_press", map[string]any{"key": "Hyperdrive"})
	if !bad.IsError || !strings.Contains(bad.Content, `unknown key "Hyperdrive"`) {
		t.Fatalf("an unknown key:\n%s", bad.Content)
	}
}
