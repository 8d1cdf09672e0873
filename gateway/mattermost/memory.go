package mattermost

import (
	"context"
	"encoding/json"
	"log/slog"
	"maps"
	"strconv"
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

func threadKey(channel, root string) string { return "mattermost:thread:" + channel + ":" + root }

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

// channels remembers the channels the bot has read posts in (with their
// type, "D" for a DM) and the creation time of the last post read, so
// that a reconnect or a restart reads what was posted meanwhile: in
// memory, and in the KV when there is one.
type channels struct {
	kv  gateway.KV
	log *slog.Logger

	mu     sync.Mutex
	loaded bool
	types  map[string]string
	last   int64 // ms; 0 before the first read
}

const (
	maxChannels = 1024
	channelsKey = "mattermost:channels"
	sinceKey    = "mattermost:since"
)

func newChannels(kv gateway.KV, log *slog.Logger) *channels {
	return &channels{kv: kv, log: log, types: map[string]string{}}
}

// loadLocked reads the KV once.
func (c *channels) loadLocked(ctx context.Context) {
	if c.loaded || c.kv == nil {
		c.loaded = true
		return
	}
	if v, ok, err := c.kv.Get(ctx, channelsKey); err != nil {
		c.log.Warn("could not read the channels seen before", "err", err)
	} else if ok {
		_ = json.Unmarshal([]byte(v), &c.types)
	}
	if v, ok, err := c.kv.Get(ctx, sinceKey); err != nil {
		c.log.Warn("could not read the time of the last post read", "err", err)
	} else if ok {
		c.last, _ = strconv.ParseInt(v, 10, 64)
	}
	c.loaded = true
}

// see records a channel and its type.
func (c *channels) see(ctx context.Context, id, typ string) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.loadLocked(ctx)
	if old, ok := c.types[id]; ok && (old == typ || typ == "") {
		return nil
	}
	if len(c.types) >= maxChannels {
		for k := range c.types { // forget one at random
			delete(c.types, k)
			break
		}
	}
	c.types[id] = typ
	if c.kv == nil {
		return nil
	}
	b, _ := json.Marshal(c.types)
	return c.kv.Set(ctx, channelsKey, string(b))
}

// read records a post's creation time as read, when it is the latest.
func (c *channels) read(ctx context.Context, at int64) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.loadLocked(ctx)
	if at <= c.last {
		return nil
	}
	c.last = at
	if c.kv == nil {
		return nil
	}
	return c.kv.Set(ctx, sinceKey, strconv.FormatInt(at, 10))
}

// since is the creation time of the last post read; false before any.
func (c *channels) since(ctx context.Context) (int64, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.loadLocked(ctx)
	return c.last, c.last > 0
}

// known is a copy of the channels seen, with their types.
func (c *channels) known() map[string]string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return maps.Clone(c.types)
}
