// Package chatmem holds the bounded memories a platform adapter keeps
// between messages: the message ids it handled lately, the threads the
// bot replied in, and people's display names. Each is bounded, so a
// long-running gateway's memory does not grow with its traffic.
package chatmem

import (
	"context"
	"log/slog"
	"sync"

	"github.com/hermes-go/hermes/gateway"
)

// Recent is a bounded set of the latest ids claimed; the oldest are
// forgotten first.
type Recent struct {
	mu    sync.Mutex
	ids   map[string]bool
	order []string
	max   int
}

// NewRecent returns a set that keeps the max latest ids.
func NewRecent(max int) *Recent { return &Recent{ids: map[string]bool{}, max: max} }

// Claim marks id as handled; it reports false when it already was.
func (r *Recent) Claim(id string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.ids[id] {
		return false
	}
	r.ids[id] = true
	r.order = append(r.order, id)
	for len(r.order) > r.max {
		delete(r.ids, r.order[0])
		r.order = r.order[1:]
	}
	return true
}

// Has reports whether id is claimed.
func (r *Recent) Has(id string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.ids[id]
}

// Forget unmarks id, so that it is handled when it comes again.
func (r *Recent) Forget(id string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	delete(r.ids, id)
}

// Threads remembers the threads the bot has posted in, so that a reply
// there without a mention is still addressed to it: in memory (bounded),
// and in the KV when there is one, across restarts.
type Threads struct {
	prefix string
	kv     gateway.KV
	log    *slog.Logger
	mem    *Recent
}

// NewThreads keeps the max latest threads in memory, and every thread in
// kv (nil: none) under "<platform>:thread:".
func NewThreads(platform string, kv gateway.KV, log *slog.Logger, max int) *Threads {
	return &Threads{prefix: platform + ":thread:", kv: kv, log: log, mem: NewRecent(max)}
}

func (t *Threads) key(channel, thread string) string { return t.prefix + channel + ":" + thread }

// Add records that the bot replied in channel's thread.
func (t *Threads) Add(ctx context.Context, channel, thread string) {
	key := t.key(channel, thread)
	if !t.mem.Claim(key) || t.kv == nil {
		return
	}
	if err := t.kv.Set(ctx, key, "1"); err != nil {
		// The bot still answers mentions in that thread.
		t.log.Warn("could not remember a thread the bot replied in", "channel", channel, "thread", thread, "err", err)
	}
}

// Has reports whether the bot replied in channel's thread.
func (t *Threads) Has(ctx context.Context, channel, thread string) bool {
	key := t.key(channel, thread)
	if known := t.mem.Has(key); known || t.kv == nil {
		return known
	}
	_, ok, err := t.kv.Get(ctx, key)
	if err != nil {
		t.log.Warn("could not read the threads the bot replied in", "err", err)
		return false
	}
	if ok {
		t.mem.Claim(key)
	}
	return ok
}

// Names remembers short strings by id (people's display names), at most
// max: past that it starts again empty.
type Names struct {
	mu  sync.Mutex
	m   map[string]string
	max int
}

// NewNames returns a memory of at most max names.
func NewNames(max int) *Names { return &Names{m: map[string]string{}, max: max} }

// Get returns id's name, if remembered.
func (n *Names) Get(id string) (string, bool) {
	n.mu.Lock()
	defer n.mu.Unlock()
	name, ok := n.m[id]
	return name, ok
}

// Put remembers id's name.
func (n *Names) Put(id, name string) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if len(n.m) >= n.max {
		clear(n.m)
	}
	n.m[id] = name
}
