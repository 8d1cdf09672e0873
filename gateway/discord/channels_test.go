package discord

import (
	"fmt"
	"testing"

	"github.com/bwmarrin/discordgo"
)

func TestChannelCacheIsBounded(t *testing.T) {
	t.Parallel()
	c := newChannelCache(3)
	for i := range 10 {
		c.put(&discordgo.Channel{ID: fmt.Sprint(i), Type: discordgo.ChannelTypeGuildPublicThread, ParentID: "p"})
	}
	if n := len(c.parent); n != 3 {
		t.Fatalf("the cache holds %d channels, want at most 3", n)
	}
	if p, ok := c.get("9"); !ok || p != "p" {
		t.Fatalf("the last channel put: %q %v", p, ok)
	}
	c.put(&discordgo.Channel{ID: "9", Type: discordgo.ChannelTypeGuildText, ParentID: "category"})
	if p, _ := c.get("9"); p != "" {
		t.Fatalf("a text channel's parent (its category) was taken for a thread's: %q", p)
	}
}
