package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestBrowserKeys(t *testing.T) {
	home := t.TempDir()
	os.WriteFile(filepath.Join(home, "config.yaml"), []byte("browser:\n  executable: /opt/chrome/chrome\n  cdp_url: http://127.0.0.1:9222\n  idle_timeout: 30\n  headless: false\n"), 0o644)
	c, err := Load(home, func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	b := c.Browser
	if b.Executable != "/opt/chrome/chrome" || b.CDPURL != "http://127.0.0.1:9222" || b.IdleTimeout == nil || *b.IdleTimeout != 30 || b.Headless == nil || *b.Headless {
		t.Fatalf("browser: %+v", b)
	}
	if len(c.Warnings) != 0 {
		t.Fatalf("warnings: %v", c.Warnings)
	}
}

func TestBrowserKeysAreValidated(t *testing.T) {
	for body, want := range map[string]string{
		"browser:\n  idle_timeout: -5\n":          "browser.idle_timeout: -5 is not allowed",
		"browser:\n  cdp_url: localhost:9222\n":   `browser.cdp_url: "localhost:9222" is not allowed`,
		"browser:\n  cdp_url: file:///tmp/sock\n": `browser.cdp_url: "file:///tmp/sock" is not allowed`,
	} {
		home := t.TempDir()
		os.WriteFile(filepath.Join(home, "config.yaml"), []byte(body), 0o644)
		_, err := Load(home, func(string) string { return "" })
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want %q", body, err, want)
		}
	}
}

// HERMES_WEB_ALLOW_PRIVATE=1 turns web.allow_private on, for the web
// tools and the browser alike.
func TestAllowPrivateFromTheEnvironment(t *testing.T) {
	c, err := Load(t.TempDir(), func(k string) string {
		if k == "HERMES_WEB_ALLOW_PRIVATE" {
			return "1"
		}
		return ""
	})
	if err != nil || !c.Web.AllowPrivate {
		t.Fatalf("allow_private %v, err %v", c != nil && c.Web.AllowPrivate, err)
	}
}
