package app_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hermes-go/hermes/app"
	"github.com/hermes-go/hermes/llm/openai"
	"github.com/hermes-go/hermes/tool"
)

// fakeChromium is an executable file standing for a browser: finding one
// is all offering the tools needs (it starts on first use).
func fakeChromium(t *testing.T) string {
	p := filepath.Join(t.TempDir(), "chromium")
	if err := os.WriteFile(p, []byte("#!/bin/sh\nexit 1\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

func browserToolNames(conv *app.Conversation) []string {
	var out []string
	for _, s := range conv.ToolSpecs() {
		if s.Toolset == "browser" {
			out = append(out, s.Name)
		}
	}
	return out
}

// The browser tools are offered where a browser is found: in chats (a
// conversation with an origin) by default, elsewhere when the toolsets
// name browser; never when the toolsets leave it out.
func TestBrowserToolsAreOfferedInChatsAndWhenNamed(t *testing.T) {
	cfg := newConfig(t, "http://127.0.0.1:9/v1")
	cfg.Browser.Executable = fakeChromium(t)
	rt := newRuntime(t, cfg, app.Options{})

	if got := browserToolNames(open(t, rt, app.ConversationOptions{})); len(got) != 0 {
		t.Fatalf("a one-shot conversation got %v", got)
	}
	chat := browserToolNames(open(t, rt, app.ConversationOptions{Origin: "local"}))
	for _, want := range []string{"browser_navigate", "browser_snapshot", "browser_click", "browser_type", "browser_select", "browser_press",
		"browser_scroll", "browser_back", "browser_wait", "browser_screenshot", "browser_get_images", "browser_console", "browser_dialog"} {
		if !slices.Contains(chat, want) {
			t.Fatalf("a chat lacks %s: %v", want, chat)
		}
	}
	if got := browserToolNames(open(t, rt, app.ConversationOptions{Toolsets: []string{"browser"}})); len(got) != len(chat) {
		t.Fatalf("--toolsets browser gave %v", got)
	}
	if got := browserToolNames(open(t, rt, app.ConversationOptions{Origin: "local", Toolsets: []string{"terminal"}})); len(got) != 0 {
		t.Fatalf("toolsets without browser gave %v", got)
	}

	// config.yaml's toolsets (hermes setup tools writes every toolset on)
	// turn the browser on, not into every one-shot run.
	cfg.Toolsets = []string{"browser", "file", "terminal"}
	rt = newRuntime(t, cfg, app.Options{})
	if got := browserToolNames(open(t, rt, app.ConversationOptions{})); len(got) != 0 {
		t.Fatalf("a one-shot conversation under a toolsets setting got %v", got)
	}
	if got := browserToolNames(open(t, rt, app.ConversationOptions{Origin: "local"})); len(got) != len(chat) {
		t.Fatalf("a chat under a toolsets setting got %v", got)
	}
}

// With no browser installed the tools are not offered, and naming the
// toolset says why.
func TestNoBrowserNoTools(t *testing.T) {
	cfg := newConfig(t, "http://127.0.0.1:9/v1")
	cfg.Browser.Executable = filepath.Join(t.TempDir(), "missing-chrome")
	rt := newRuntime(t, cfg, app.Options{})
	conv := open(t, rt, app.ConversationOptions{Toolsets: []string{"browser", "file"}})
	if got := browserToolNames(conv); len(got) != 0 {
		t.Fatalf("offered without a browser: %v", got)
	}
	if w := strings.Join(rt.Warnings(), "\n"); !strings.Contains(w, "browser tools not offered: browser.executable names") {
		t.Fatalf("warnings: %s", w)
	}
	st := app.FindBrowser(cfg, func(string) string { return "" })
	if st.Available || !strings.Contains(st.Reason, "missing-chrome") {
		t.Fatalf("status %+v", st)
	}
}

// browserBytes pins the browser toolset's definitions (thirteen tools,
// fourteen with browser_vision): offered in chats, where the first
// request has room; a one-shot run's stays under 10 KB without them.
const browserBytes = 4024

func TestBrowserToolDefinitionsStayWithinTheirPin(t *testing.T) {
	cfg := newConfig(t, "http://127.0.0.1:9/v1")
	cfg.Browser.Executable = fakeChromium(t)
	rt := newRuntime(t, cfg, app.Options{})
	n := 0
	for _, s := range open(t, rt, app.ConversationOptions{Toolsets: []string{"browser"}}).ToolSpecs() {
		if s.Toolset != "browser" {
			continue
		}
		b, err := openai.ChatToolBytes(tool.Def(s))
		if err != nil {
			t.Fatal(err)
		}
		n += b
	}
	if n > browserBytes {
		t.Fatalf("the browser toolset is %d bytes, pinned at %d", n, browserBytes)
	}
	t.Logf("browser toolset: %d bytes", n)
}
