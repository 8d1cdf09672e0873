package discordtest

import (
	"encoding/json"
	"fmt"
	"slices"
)

// Guild is the id of the guild channels join unless they name another.
const Guild = "1100000000000000001"

// Push delivers a message a person sent (MESSAGE_CREATE) and returns it
// as stored, with its id. A channel the fake does not know yet becomes a
// text channel of Guild (or of m.GuildID). Attachments get ids and URLs
// the fake serves.
func (s *Server) Push(m Message) Message {
	s.mu.Lock()
	defer s.mu.Unlock()
	if m.ChannelID == "" {
		panic("discordtest: Push needs a ChannelID")
	}
	ch, ok := s.channels[m.ChannelID]
	if !ok {
		guild := m.GuildID
		if guild == "" {
			guild = Guild
		}
		ch = s.addChannelLocked(Channel{ID: m.ChannelID, GuildID: guild, Type: GuildText, Name: "channel-" + m.ChannelID})
	}
	stored := cloneMessage(&m)
	stored.ID = s.newIDLocked()
	stored.GuildID = ch.GuildID
	for i, a := range stored.Attachments {
		stored.Attachments[i] = s.storeAttachmentLocked(a)
	}
	s.storeMessageLocked(&stored)
	s.dispatchLocked("MESSAGE_CREATE", s.messageWireLocked(&stored))
	return cloneMessage(&stored)
}

// Redeliver delivers a message sent before (by Push, PushDM or
// PushMention) once more, the same MESSAGE_CREATE with the same id, as
// Discord may after a session it believes lost a dispatch.
func (s *Server) Redeliver(m Message) {
	s.mu.Lock()
	defer s.mu.Unlock()
	stored, ok := s.messages[m.ID]
	if !ok {
		panic("discordtest: Redeliver of a message the fake never delivered: " + m.ID)
	}
	s.dispatchLocked("MESSAGE_CREATE", s.messageWireLocked(stored))
}

// PushDM delivers a direct message from a person to the bot.
func (s *Server) PushDM(from User, text string) Message {
	return s.Push(Message{ChannelID: s.DMChannel(from), Author: from, Content: text})
}

// DMChannel returns the DM channel between the bot and a person, making
// it on first use.
func (s *Server) DMChannel(u User) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if id, ok := s.dms[u.ID]; ok {
		return id
	}
	id := s.newIDLocked()
	s.dms[u.ID] = id
	s.addChannelLocked(Channel{ID: id, Type: DMChannel})
	return id
}

// PushMention delivers a guild message that mentions the bot
// ("<@botid> text").
func (s *Server) PushMention(channelID string, from User, text string) Message {
	bot := s.Bot()
	return s.Push(Message{
		ChannelID: channelID, Author: from, Content: fmt.Sprintf("<@%s> %s", bot.ID, text),
		Mentions: []User{bot},
	})
}

// CreateThread starts a thread in a channel and announces it with
// THREAD_CREATE.
func (s *Server) CreateThread(parentID, name string) Channel {
	s.mu.Lock()
	defer s.mu.Unlock()
	guild := Guild
	if p, ok := s.channels[parentID]; ok {
		guild = p.GuildID
	}
	th := *s.addChannelLocked(Channel{ID: s.newIDLocked(), GuildID: guild, ParentID: parentID, Type: PublicThread, Name: name})
	w := th.wire()
	w["newly_created"] = true
	s.dispatchLocked("THREAD_CREATE", w)
	return th
}

// Click presses a button of one of the bot's messages
// (INTERACTION_CREATE, a message component) as person from.
func (s *Server) Click(messageID string, from User, customID string) Interaction {
	s.mu.Lock()
	defer s.mu.Unlock()
	m, ok := s.messages[messageID]
	if !ok {
		panic("discordtest: Click on an unknown message " + messageID)
	}
	in := &Interaction{
		ID: s.newIDLocked(), Type: ComponentInteraction, Token: "itoken-" + randomHex(12), MessageID: m.ID,
		ChannelID: m.ChannelID, GuildID: m.GuildID, User: from, CustomID: customID,
	}
	s.interactions[in.ID] = in
	s.byToken[in.Token] = in
	w := map[string]any{
		"id": in.ID, "application_id": s.appID, "type": 3, "token": in.Token, "version": 1,
		"channel_id": m.ChannelID, "message": s.messageWireLocked(m), "locale": "en-US",
		"data": map[string]any{"custom_id": customID, "component_type": 2},
	}
	if m.GuildID != "" {
		w["guild_id"] = m.GuildID
		w["member"] = map[string]any{"user": from.wire(), "roles": []any{}, "nick": nil}
	} else {
		w["user"] = from.wire()
	}
	s.dispatchLocked("INTERACTION_CREATE", w)
	return *in
}

// SlashCommand uses one of the bot's registered slash commands
// (INTERACTION_CREATE, an APPLICATION_COMMAND) as person from in a
// channel: a DM channel (see DMChannel) or a guild channel, which the
// fake makes a text channel of Guild when it does not know it. A
// non-empty text is the value of the command's "text" option.
func (s *Server) SlashCommand(channelID string, from User, name, text string) Interaction {
	s.mu.Lock()
	defer s.mu.Unlock()
	cmd, ok := s.commandLocked(name)
	if !ok {
		panic("discordtest: SlashCommand of a command the bot did not register: " + name)
	}
	ch, ok := s.channels[channelID]
	if !ok {
		ch = s.addChannelLocked(Channel{ID: channelID, GuildID: Guild, Type: GuildText, Name: "channel-" + channelID})
	}
	in := &Interaction{
		ID: s.newIDLocked(), Type: CommandInteraction, Token: "itoken-" + randomHex(12),
		ChannelID: ch.ID, GuildID: ch.GuildID, User: from, Command: name, Text: text,
	}
	s.interactions[in.ID] = in
	s.byToken[in.Token] = in
	data := map[string]any{"id": cmd.ID, "name": cmd.Name, "type": cmd.Type}
	if text != "" {
		data["options"] = []any{map[string]any{"name": "text", "type": 3, "value": text}}
	}
	w := map[string]any{
		"id": in.ID, "application_id": s.appID, "type": CommandInteraction, "token": in.Token, "version": 1,
		"channel_id": ch.ID, "channel": ch.wire(), "locale": "en-US", "data": data,
	}
	if ch.GuildID != "" {
		w["guild_id"] = ch.GuildID
		w["member"] = map[string]any{"user": from.wire(), "roles": []any{}, "nick": nil}
	} else {
		w["user"] = from.wire()
	}
	s.dispatchLocked("INTERACTION_CREATE", w)
	return *in
}

func (s *Server) dispatchLocked(typ string, data any) {
	raw, err := json.Marshal(data)
	if err != nil {
		panic("discordtest: event data does not marshal: " + err.Error())
	}
	s.dispatchRawLocked(typ, raw)
}

// guildsLocked renders every guild the fake knows for GUILD_CREATE, with
// its channels and threads.
func (s *Server) guildsLocked() []map[string]any {
	byGuild := map[string]map[string]any{}
	var ids []string
	for _, c := range s.channels {
		if c.GuildID == "" {
			continue
		}
		g, ok := byGuild[c.GuildID]
		if !ok {
			g = map[string]any{"id": c.GuildID, "name": "guild " + c.GuildID, "channels": []any{}, "threads": []any{}}
			byGuild[c.GuildID] = g
			ids = append(ids, c.GuildID)
		}
		key := "channels"
		if c.ParentID != "" {
			key = "threads"
		}
		g[key] = append(g[key].([]any), c.wire())
	}
	slices.Sort(ids)
	var out []map[string]any
	for _, id := range ids {
		out = append(out, byGuild[id])
	}
	return out
}

func (s *Server) unavailableGuildsLocked() []any {
	out := []any{}
	for _, g := range s.guildsLocked() {
		out = append(out, map[string]any{"id": g["id"], "unavailable": true})
	}
	return out
}
