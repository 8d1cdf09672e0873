package provider

import (
	"context"
	"net"
	"net/url"
	"strings"
	"sync"
	"time"
)

// DefaultStaleTimeout is how long a stream may send nothing before the
// attempt is abandoned as stalled.
const DefaultStaleTimeout = 180 * time.Second

// watchdog cancels a context when touch is not called within d.
type watchdog struct {
	mu     sync.Mutex
	d      time.Duration
	timer  *time.Timer
	cancel context.CancelFunc
	fired  bool
}

func newWatchdog(ctx context.Context, d time.Duration) (context.Context, *watchdog) {
	ctx, cancel := context.WithCancel(ctx)
	w := &watchdog{d: d, cancel: cancel}
	w.timer = time.AfterFunc(d, func() {
		w.mu.Lock()
		w.fired = true
		w.mu.Unlock()
		cancel()
	})
	return ctx, w
}

// touch pushes the deadline back.
func (w *watchdog) touch() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.fired {
		w.timer.Reset(w.d)
	}
}

// stop ends the watch and reports whether it fired.
func (w *watchdog) stop() bool {
	w.timer.Stop()
	w.cancel()
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.fired
}

// isLocal reports whether an endpoint runs on this machine: a local
// provider alias or a loopback / localhost base URL.
func isLocal(ep Endpoint) bool {
	if s, ok := Lookup(ep.Provider); ok && s.Local {
		return true
	}
	u, err := url.Parse(ep.BaseURL)
	if err != nil {
		return false
	}
	h := strings.ToLower(u.Hostname())
	if h == "localhost" || strings.HasSuffix(h, ".localhost") {
		return true
	}
	ip := net.ParseIP(h)
	return ip != nil && ip.IsLoopback()
}
