package slack

import (
	"context"
	"log/slog"
	"sync"

	"github.com/hermes-go/hermes/gateway"
)

// recent is a bounded set of the latest message ids handed to the
// handler; the oldest are forgotten first.
type recent struct {
	mu    sync.Mutex
	ids   map[string]bool
	order []string
	max   int
}

func newRecent(max int) *recent { return &recent{ids: map[string]bool{}, max: max} }

// claim marks id as handled; it reports false when it already was.
func (r *recent) claim(id string) bool {
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

// forget unmarks id, so that it is handled when it comes again.
func (r *recent) forget(id string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	delete(r.ids, id)
}

// threads remembers the threads the bot has posted in, so that a reply
// there without a mention is still addressed to it: in memory (bounded),
// and in the KV when there is one, across restarts.
type threads struct {
	kv  gateway.KV
	log *slog.Logger
	mem *recent
}

func newThreads(kv gateway.KV, log *slog.Logger, max int) *threads {
	return &threads{kv: kv, log: log, mem: newRecent(max)}
}

func threadKey(channel, ts string) string { return "slack:thread:" + channel + ":" + ts }

func (t *threads) add(ctx context.Context, channel, ts string) {
	key := threadKey(channel, ts)
	if !t.mem.claim(key) || t.kv == nil {
		return
	}
	if err := t.kv.Set(ctx, key, "1"); err != nil {
		// The bot still answers mentions in that thread.
		t.log.Warn("could not remember a thread the bot replied in", "channel", channel, "thread", ts, "err", err)
	}
}

func (t *threads) has(ctx context.Context, channel, ts string) bool {
	key := threadKey(channel, ts)
	t.mem.mu.Lock()
	known := t.mem.ids[key]
	t.mem.mu.Unlock()
	if known || t.kv == nil {
		return known
	}
	_, ok, err := t.kv.Get(ctx, key)
	if err != nil {
		t.log.Warn("could not read the threads the bot replied in", "err", err)
		return false
	}
	if ok {
		t.mem.claim(key)
	}
	return ok
}

// names remembers people's display names (bounded).
type names struct {
	mu  sync.Mutex
	m   map[string]string
	max int
}

func newNames(max int) *names { return &names{m: map[string]string{}, max: max} }

func (n *names) get(id string) (string, bool) {
	n.mu.Lock()
	defer n.mu.Unlock()
	name, ok := n.m[id]
	return name, ok
}

func (n *names) put(id, name string) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if len(n.m) >= n.max {
		clear(n.m)
	}
	n.m[id] = name
}
