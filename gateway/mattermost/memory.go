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
