package browser

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// Names are the executables looked for on PATH, in order, when neither
// browser.executable nor CHROME_PATH names one.
func Names() []string {
	return []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"}
}

// Found is the browser a conversation would use.
type Found struct {
	// Path is the executable started; empty when CDPURL attaches.
	Path string
	// CDPURL is a running browser's DevTools address (browser.cdp_url).
	CDPURL string
	// Source says where the choice came from: "browser.cdp_url",
	// "browser.executable", "CHROME_PATH" or "PATH".
	Source string
}

func (f Found) String() string {
	if f.CDPURL != "" {
		return fmt.Sprintf("a running browser at %s (%s)", f.CDPURL, f.Source)
	}
	return fmt.Sprintf("%s (%s)", f.Path, f.Source)
}

// ErrNotFound is wrapped by Find's error when no browser is installed.
var ErrNotFound = errors.New("no Chromium or Chrome found")

// Find picks the browser: browser.cdp_url attaches to a running one;
// otherwise browser.executable, CHROME_PATH, or the first of Names on
// PATH. A named executable that is missing is an error, not a fallback:
// the user asked for that one. Nothing is ever downloaded.
func Find(executable, cdpURL string, getenv func(string) string, lookPath func(string) (string, error)) (Found, error) {
	if getenv == nil {
		getenv = os.Getenv
	}
	if lookPath == nil {
		lookPath = exec.LookPath
	}
	if cdpURL = strings.TrimSpace(cdpURL); cdpURL != "" {
		return Found{CDPURL: cdpURL, Source: "browser.cdp_url"}, nil
	}
	named := func(p, source string) (Found, error) {
		if !strings.ContainsRune(p, filepath.Separator) {
			lp, err := lookPath(p)
			if err != nil {
				return Found{}, fmt.Errorf("%s names %q, which is not on PATH: %w", source, p, err)
			}
			p = lp
		}
		st, err := os.Stat(p)
		if err != nil {
			return Found{}, fmt.Errorf("%s names %s: %w", source, p, err)
		}
		if st.IsDir() || st.Mode().Perm()&0o111 == 0 {
			return Found{}, fmt.Errorf("%s names %s, which is not an executable file", source, p)
		}
		return Found{Path: p, Source: source}, nil
	}
	if executable = strings.TrimSpace(executable); executable != "" {
		return named(executable, "browser.executable")
	}
	if p := strings.TrimSpace(getenv("CHROME_PATH")); p != "" {
		return named(p, "CHROME_PATH")
	}
	for _, n := range Names() {
		if p, err := lookPath(n); err == nil {
			return Found{Path: p, Source: "PATH"}, nil
		}
	}
	return Found{}, fmt.Errorf("%w: none of %s is on PATH; install Debian's chromium (apt-get install chromium), or set browser.executable, CHROME_PATH or browser.cdp_url",
		ErrNotFound, strings.Join(Names(), ", "))
}
