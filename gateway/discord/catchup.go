package discord

import (
	"context"
	"encoding/json"
	"maps"
	"slices"
	"time"

	"github.com/bwmarrin/discordgo"
)

const (
	// seenKey is the KV key of the last message handed over per channel.
	seenKey = "discord.last_seen"
	// seenChannels bounds the channels caught up on: the most recently
	// active ones.
	seenChannels = 50
	// catchUpWindow is how old a missed message may be and still be
	// handed over (Telegram keeps undelivered updates as long).
	catchUpWindow = 24 * time.Hour
	// catchUpPerChannel bounds what one channel hands over.
	catchUpPerChannel = 100
)

// lastSeen is the id of the last message handed to the gateway in each
// recently active channel. Discord replays what a session missed only
// while the session lives (a RESUME); after a restart, or once Discord
// ended the session, the adapter reads what was said since from these
// channels' histories.
type lastSeen struct {
	loaded bool
	last   map[string]cursor // by channel id
}

// cursor is the last message handed over in a channel, and the channel's
// guild ("" for a DM): a channel's history does not say.
type cursor struct {
	ID    string `json:"id"`
	Guild string `json:"guild,omitempty"`
}

// noteSeen records that a channel's message was handed over.
func (a *Adapter) noteSeen(channelID, guildID, messageID string) {
	a.mu.Lock()
	seen := a.loadSeenLocked()
	if old, ok := seen.last[channelID]; ok && !newer(messageID, old.ID) {
		a.mu.Unlock()
		return
	}
	seen.last[channelID] = cursor{ID: messageID, Guild: guildID}
	if len(seen.last) > seenChannels {
		oldest := ""
		for ch, c := range seen.last {
			if oldest == "" || newer(seen.last[oldest].ID, c.ID) {
				oldest = ch
			}
		}
		delete(seen.last, oldest)
	}
	raw, _ := json.Marshal(seen.last)
	ctx := a.ctx
	a.mu.Unlock()
	if ctx == nil {
		ctx = context.Background()
	}
	if err := a.kv.Set(context.WithoutCancel(ctx), seenKey, string(raw)); err != nil {
		a.log.Warn("discord: cannot store the last message seen", "err", err)
	}
}

// loadSeenLocked reads the cursors from the KV on first use.
func (a *Adapter) loadSeenLocked() *lastSeen {
	if a.seen == nil {
		a.seen = &lastSeen{last: map[string]cursor{}}
	}
	if a.seen.loaded {
		return a.seen
	}
	a.seen.loaded = true
	ctx := a.ctx
	if ctx == nil {
		ctx = context.Background()
	}
	raw, ok, err := a.kv.Get(ctx, seenKey)
	switch {
	case err != nil:
		a.log.Warn("discord: cannot read the last messages seen", "err", err)
	case ok:
		if err := json.Unmarshal([]byte(raw), &a.seen.last); err != nil {
			a.log.Warn("discord: the last messages seen do not decode", "err", err)
		}
	}
	if a.seen.last == nil {
		a.seen.last = map[string]cursor{}
	}
	return a.seen
}

// catchUp hands over, after a new session starts, the messages sent in
// recently active channels since the last one handed over (at most a
// day old), oldest first. It runs beside the live events; the gateway
// drops any message it gets twice by its id.
func (a *Adapter) catchUp() {
	a.mu.Lock()
	cursors := maps.Clone(a.loadSeenLocked().last)
	h, ctx := a.h, a.ctx
	a.mu.Unlock()
	if h == nil || len(cursors) == 0 {
		return
	}
	channels := slices.Collect(maps.Keys(cursors))
	slices.SortFunc(channels, func(x, y string) int { return compareIDs(cursors[x].ID, cursors[y].ID) })
	go func() {
		for _, ch := range channels {
			if ctx.Err() != nil {
				return
			}
			a.catchUpChannel(ctx, ch, cursors[ch])
		}
	}()
}

func (a *Adapter) catchUpChannel(ctx context.Context, channelID string, from cursor) {
	after := from.ID
	oldest := a.o.Now().Add(-catchUpWindow)
	for handed := 0; handed < catchUpPerChannel; {
		var ans answer
		msgs, err := a.s.ChannelMessages(channelID, 100, "", after, "", a.call(ctx, &ans)...)
		if err != nil {
			a.log.Warn("discord: catching up on a channel failed", "channel", channelID,
				"err", classify("read channel history", err, &ans))
			return
		}
		if len(msgs) == 0 {
			return
		}
		slices.SortFunc(msgs, func(x, y *discordgo.Message) int { return compareIDs(x.ID, y.ID) })
		for _, m := range msgs {
			after = m.ID
			if ts, err := discordgo.SnowflakeTimestamp(m.ID); err == nil && ts.Before(oldest) {
				continue
			}
			if m.GuildID == "" {
				m.GuildID = from.Guild
			}
			in, ok := a.inbound(ctx, m)
			if !ok {
				continue
			}
			h, _ := a.handler()
			if h == nil || h.Message(ctx, in) != nil {
				return
			}
			a.noteSeen(channelID, from.Guild, m.ID)
			handed++
		}
		if len(msgs) < 100 {
			return
		}
	}
}

// newer says whether snowflake x is later than y.
func newer(x, y string) bool { return compareIDs(x, y) > 0 }

func compareIDs(x, y string) int {
	if len(x) != len(y) {
		return len(x) - len(y)
	}
	switch {
	case x < y:
		return -1
	case x > y:
		return 1
	}
	return 0
}
