package discord

import (
	"context"
	"encoding/json"
	"log/slog"
	"maps"
	"slices"
	"sync"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/hermes-go/hermes/gateway"
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
// recently active channel, kept in the KV. Discord replays what a session
// missed only while the session lives (a RESUME); after a restart, or
// once Discord ended the session, the adapter reads what was said since
// from these channels' histories.
type lastSeen struct {
	kv  gateway.KV
	log *slog.Logger

	mu   sync.Mutex
	last map[string]cursor // by channel id
	// held are channels where the gateway refused a message: their cursor
	// stays before it until the next catch-up reads it again.
	held map[string]bool

	writing sync.Mutex // keeps the KV's copy in the order of changes
}

// cursor is the last message handed over in a channel, and the channel's
// guild ("" for a DM): a channel's history does not say.
type cursor struct {
	ID    string `json:"id"`
	Guild string `json:"guild,omitempty"`
}

func newLastSeen(kv gateway.KV, log *slog.Logger) *lastSeen {
	return &lastSeen{kv: kv, log: log, last: map[string]cursor{}, held: map[string]bool{}}
}

// load reads the cursors a previous run kept.
func (l *lastSeen) load(ctx context.Context) {
	raw, ok, err := l.kv.Get(ctx, seenKey)
	if err != nil {
		l.log.Warn("discord: cannot read the last messages seen", "err", err)
		return
	}
	last := map[string]cursor{}
	if ok {
		if err := json.Unmarshal([]byte(raw), &last); err != nil {
			l.log.Warn("discord: the last messages seen do not decode", "err", err)
			return
		}
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.last = last
}

// note records that a channel's message was handed over.
func (l *lastSeen) note(ctx context.Context, channelID, guildID, messageID string) {
	l.writing.Lock()
	defer l.writing.Unlock()
	l.mu.Lock()
	if old, ok := l.last[channelID]; l.held[channelID] || (ok && !newer(messageID, old.ID)) {
		l.mu.Unlock()
		return
	}
	l.last[channelID] = cursor{ID: messageID, Guild: guildID}
	if len(l.last) > seenChannels {
		oldest := ""
		for ch, c := range l.last {
			if oldest == "" || newer(l.last[oldest].ID, c.ID) {
				oldest = ch
			}
		}
		delete(l.last, oldest)
	}
	raw, _ := json.Marshal(l.last)
	l.mu.Unlock()
	if err := l.kv.Set(context.WithoutCancel(ctx), seenKey, string(raw)); err != nil {
		l.log.Warn("discord: cannot store the last message seen", "err", err)
	}
}

// hold keeps a channel's cursor where it is: the gateway did not take a
// message of it.
func (l *lastSeen) hold(channelID string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.held[channelID] = true
}

// take returns the cursors to catch up from and lets held ones move
// again.
func (l *lastSeen) take() map[string]cursor {
	l.mu.Lock()
	defer l.mu.Unlock()
	clear(l.held)
	return maps.Clone(l.last)
}

// catchUp hands over, after a new session starts, the messages sent in
// recently active channels since the last one handed over (at most a
// day old), oldest first. It runs beside the live events; the gateway
// drops any message it gets twice by its id.
func (a *Adapter) catchUp() {
	cursors := a.seen.take()
	h, ctx := a.handler()
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
			if h == nil {
				return
			}
			if err := h.Message(ctx, in); err != nil {
				a.log.Error("discord: the gateway did not take a missed message", "message", in.MessageID, "err", err)
				a.seen.hold(channelID)
				return
			}
			a.seen.note(ctx, channelID, from.Guild, m.ID)
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
