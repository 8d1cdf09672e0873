package browser

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/remote"
)

// launchFlags are Chromium's switches besides chromedp's defaults: no
// sandbox of its own (hermes runs as root in containers, where Chromium's
// sandbox cannot start), nothing that talks to Google in the background,
// no QUIC (every request is an interceptable HTTP one), a fixed window.
func launchFlags(headless bool) []chromedp.ExecAllocatorOption {
	opts := []chromedp.ExecAllocatorOption{
		chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck,
		chromedp.NoSandbox,
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-breakpad", true),
		chromedp.Flag("disable-crash-reporter", true),
		chromedp.Flag("disable-default-apps", true),
		chromedp.Flag("disable-extensions", true),
		chromedp.Flag("disable-dev-shm-usage", true),
		// No Google services in the background, and no back-forward
		// cache (a page restored from it fires no load event).
		chromedp.Flag("disable-features", "Translate,MediaRouter,OptimizationHints,DialMediaRouteProvider,"+
			"AutofillServerCommunication,CertificateTransparencyComponentUpdater,InterestFeedContentSuggestions,BackForwardCache"),
		chromedp.Flag("disable-domain-reliability", true),
		chromedp.Flag("no-pings", true),
		chromedp.Flag("disable-client-side-phishing-detection", true),
		chromedp.Flag("disable-hang-monitor", true),
		chromedp.Flag("metrics-recording-only", true),
		chromedp.Flag("password-store", "basic"),
		chromedp.Flag("use-mock-keychain", true),
		chromedp.Flag("safebrowsing-disable-auto-update", true),
		chromedp.Flag("force-color-profile", "srgb"),
		chromedp.Flag("mute-audio", true),
		chromedp.Flag("disable-gpu", true),
		chromedp.WindowSize(1280, 900),
	}
	if headless {
		opts = append(opts, chromedp.Flag("headless", true), chromedp.Flag("hide-scrollbars", true))
	}
	return opts
}

// ownProcessGroup starts Chromium in a process group of its own, so that
// its helpers (zygote, renderers, GPU and network services) can be ended
// together, and asks the kernel to kill it when hermes dies (a parent-death
// signal): a SIGKILL of hermes leaves no browser behind.
func ownProcessGroup(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setpgid = true
	cmd.SysProcAttr.Pdeathsig = syscall.SIGKILL
}

// allocator returns the allocator context of a new browser: Chromium
// started from exe with profile as its user data directory, or, with
// cdpURL, the running browser there.
func allocator(parent context.Context, exe, cdpURL, profile, proxyAddr string, headless bool) (context.Context, context.CancelFunc) {
	if cdpURL != "" {
		return remote.NewAllocator(parent, cdpURL)
	}
	opts := append(launchFlags(headless),
		chromedp.ExecPath(exe),
		chromedp.UserDataDir(profile),
		chromedp.ModifyCmdFunc(ownProcessGroup),
		// Chromium reaches for D-Bus (the session and system buses) for
		// things a headless browser does not need; without a bus it
		// waits and logs. Point it at none.
		chromedp.Env("DBUS_SESSION_BUS_ADDRESS=disabled:", "DBUS_SYSTEM_BUS_ADDRESS=disabled:"),
		// Every connection through the guarded proxy, loopback too
		// (which Chromium would otherwise never proxy).
		chromedp.ProxyServer("http://"+proxyAddr),
		chromedp.Flag("proxy-bypass-list", "<-loopback>"),
		// WebRTC may not go around the proxy over UDP.
		chromedp.Flag("force-webrtc-ip-handling-policy", "disable_non_proxied_udp"),
	)
	if t := os.TempDir(); len(t) > maxSocketDir {
		// Chromium's singleton socket lives in a directory under TMPDIR;
		// under a long one its path is longer than a Unix socket's may
		// be, and Chromium exits at once. Give it the system's.
		opts = append(opts, chromedp.Env("TMPDIR=/tmp"))
	}
	return chromedp.NewExecAllocator(parent, opts...)
}

// maxSocketDir is the longest TMPDIR under which Chromium's socket path
// ($TMPDIR/.org.chromium.Chromium.XXXXXX/SingletonSocket) fits the 107
// bytes of a Unix socket address.
const maxSocketDir = 60

// killGroup ends what is left of a browser's process group: helpers that
// outlived the main process.
func killGroup(pid int) {
	if pid > 0 {
		_ = syscall.Kill(-pid, syscall.SIGKILL)
	}
}

// newProfile makes the fresh, private profile directory of one browser,
// named for this process (hermes-browser-PID-*), and first removes those
// that processes no longer running left behind: a hermes killed with
// SIGKILL cannot delete its own.
func newProfile(tmp string) (string, error) {
	if tmp == "" {
		tmp = os.TempDir()
	}
	sweepProfiles(tmp)
	dir, err := os.MkdirTemp(tmp, fmt.Sprintf("%s%d-", profilePrefix, os.Getpid()))
	if err != nil {
		return "", fmt.Errorf("browser: profile directory: %w", err)
	}
	return dir, nil
}

const profilePrefix = "hermes-browser-"

// sweepProfiles removes the profile directories in tmp whose process is
// gone. Only directories (not links) of this user are removed, and one
// whose process id is in use again is kept: a profile left is the safe
// mistake.
func sweepProfiles(tmp string) {
	ents, err := os.ReadDir(tmp)
	if err != nil {
		return
	}
	for _, e := range ents {
		rest, ok := strings.CutPrefix(e.Name(), profilePrefix)
		if !ok || !e.IsDir() {
			continue
		}
		digits, _, ok := strings.Cut(rest, "-")
		pid, err := strconv.Atoi(digits)
		if !ok || err != nil || pid <= 0 || pid == os.Getpid() {
			continue
		}
		if err := syscall.Kill(pid, 0); !errors.Is(err, syscall.ESRCH) {
			continue
		}
		path := filepath.Join(tmp, e.Name())
		fi, err := os.Lstat(path)
		if err != nil || !fi.IsDir() {
			continue
		}
		if st, ok := fi.Sys().(*syscall.Stat_t); !ok || int(st.Uid) != os.Getuid() {
			continue
		}
		_ = os.RemoveAll(path)
	}
}
