package config

import (
	"fmt"
	"net/url"
	"strings"
)

// validateBrowser checks browser.*: a DevTools address is an http(s) or
// ws(s) URL with a host, the idle timeout is not negative.
func (c *Config) validateBrowser(bad func(key, value, allowed string)) {
	if t := c.Browser.IdleTimeout; t != nil && *t < 0 {
		bad("browser.idle_timeout", fmt.Sprint(*t), "seconds, at least 0 (0: until the conversation ends)")
	}
	if s := strings.TrimSpace(c.Browser.CDPURL); s != "" {
		u, err := url.Parse(s)
		if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https" && u.Scheme != "ws" && u.Scheme != "wss") {
			bad("browser.cdp_url", fmt.Sprintf("%q", s), "a running browser's DevTools address, e.g. http://127.0.0.1:9222 or ws://127.0.0.1:9222/devtools/browser/<id>")
		}
	}
}
