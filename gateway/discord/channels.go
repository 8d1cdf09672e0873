package discord

import (
	"context"
	"sync"

	"github.com/bwmarrin/discordgo"

	"github.com/hermes-go/hermes/gateway"
)

// channelCacheSize bounds the channels whose kind the adapter remembers.
const channelCacheSize = 4096

// channelCache remembers, per guild channel, the channel a thread was
// started in ("" for a channel that is not a thread). It is bounded:
// when full, an arbitrary entry goes, and is asked for again if needed.
type channelCache struct {
	mu     sync.Mutex
	max    int
	parent map[string]string
}

func newChannelCache(max int) *channelCache {
	return &channelCache{max: max, parent: map[string]string{}}
}

func (c *channelCache) get(id string) (string, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	p, ok := c.parent[id]
	return p, ok
}

func (c *channelCache) put(ch *discordgo.Channel) {
	if ch == nil || ch.ID == "" {
		return
	}
	parent := ""
	if ch.IsThread() {
		parent = ch.ParentID
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.parent[ch.ID]; !ok && len(c.parent) >= c.max {
		for k := range c.parent {
			delete(c.parent, k)
			break
		}
	}
	c.parent[ch.ID] = parent
}

// chat says where a message of a channel belongs: a DM or a guild
// channel, or a thread (ChatID is then the channel the thread was started
// in, ThreadID the thread). Discord's events do not say whether a channel
// is a thread: THREAD_CREATE and GUILD_CREATE teach the adapter, and a
// channel it never heard of is looked up once (GET /channels/{id}).
func (a *Adapter) chat(ctx context.Context, channelID, guildID string) gateway.ChatRef {
	if guildID == "" {
		return gateway.ChatRef{ChatID: channelID}
	}
	parent, ok := a.channels.get(channelID)
	if !ok {
		var ans answer
		ch, err := a.s.Channel(channelID, a.call(ctx, &ans)...)
		if err != nil {
			a.log.Warn("discord: cannot tell whether a channel is a thread", "channel", channelID,
				"err", classify("look up channel", err, &ans))
			return gateway.ChatRef{ChatID: channelID}
		}
		a.channels.put(ch)
		parent, _ = a.channels.get(channelID)
	}
	if parent != "" {
		return gateway.ChatRef{ChatID: parent, ThreadID: channelID}
	}
	return gateway.ChatRef{ChatID: channelID}
}

func (a *Adapter) onThreadCreate(_ *discordgo.Session, t *discordgo.ThreadCreate) {
	a.channels.put(t.Channel)
}

func (a *Adapter) onThreadUpdate(_ *discordgo.Session, t *discordgo.ThreadUpdate) {
	a.channels.put(t.Channel)
}

func (a *Adapter) onGuildCreate(_ *discordgo.Session, g *discordgo.GuildCreate) {
	if g.Guild == nil {
		return
	}
	for _, ch := range g.Channels {
		a.channels.put(ch)
	}
	for _, th := range g.Threads {
		a.channels.put(th)
	}
}
