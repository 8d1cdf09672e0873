package slacktest

import (
	"encoding/json"
	"fmt"
	"net/url"
	"strings"
)

// UserMessage is a message a person posts.
type UserMessage struct {
	Channel string
	// ChannelType is "im", "channel", "group" or "mpim"; "" means "im"
	// for a D-prefixed channel id and "channel" for any other.
	ChannelType string
	User        string
	Text        string
	ThreadTS    string   // reply in this thread
	Files       []string // ids from AddFile; the event's subtype is file_share
	// BotID marks the message as an app's (posted with chat.postMessage
	// by a bot, this one included when User is BotUserID).
	BotID string
	// MentionFirst sends the app_mention event of a message that mentions
	// the bot before its message event (Slack promises no order).
	MentionFirst bool
}

// Posted says what a helper posted and how its events went out.
type Posted struct {
	Channel string
	TS      string
	// MessageID is the message's id as the adapter reports it,
	// "channel:ts".
	MessageID string
	// Envelopes are the Socket Mode envelopes sent, in order (without
	// UseEventsAPI).
	Envelopes []string
	// Statuses are the HTTP statuses the Events API endpoint answered,
	// one per event (with UseEventsAPI); 0 when the request failed.
	Statuses []int
}

// DM posts a direct message from user to the bot, in channel "D"+user.
func (s *Server) DM(user, text string) Posted {
	return s.Post(UserMessage{Channel: "D" + user, ChannelType: "im", User: user, Text: text})
}

// Say posts a channel message that does not mention the bot.
func (s *Server) Say(channelID, user, text string) Posted {
	return s.Post(UserMessage{Channel: channelID, User: user, Text: text})
}

// Mention posts "<@bot> text" in a channel: Slack sends a message event
// and an app_mention event for it.
func (s *Server) Mention(channelID, user, text string) Posted {
	return s.Post(UserMessage{Channel: channelID, User: user, Text: "<@" + BotUserID + "> " + text})
}

// Reply posts a reply in a thread, without a mention.
func (s *Server) Reply(channelID, threadTS, user, text string) Posted {
	return s.Post(UserMessage{Channel: channelID, User: user, Text: text, ThreadTS: threadTS})
}

// Post records a person's message and delivers its events.
func (s *Server) Post(m UserMessage) Posted {
	s.mu.Lock()
	ch := s.channelLocked(m.Channel)
	if m.ChannelType != "" {
		ch.kind = m.ChannelType
	}
	if _, known := s.users[m.User]; !known {
		s.users[m.User] = m.User
	}
	msg := &message{ts: s.tsLocked(), threadTS: m.ThreadTS, user: m.User, botID: m.BotID, text: m.Text, mrkdwn: true,
		files: append([]string(nil), m.Files...)}
	if len(m.Files) > 0 {
		msg.subtype = "file_share"
	}
	if parent := s.findLocked(m.Channel, m.ThreadTS); m.ThreadTS != "" && parent != nil {
		msg.parentUserID = parent.user
	}
	ch.msgs = append(ch.msgs, msg)

	event := map[string]any{
		"type": "message", "channel": m.Channel, "user": m.User, "text": m.Text, "ts": msg.ts,
		"event_ts": msg.ts, "channel_type": ch.kind, "team": TeamID,
		"client_msg_id": fmt.Sprintf("c0ffee00-0000-4000-8000-%012d", s.nextLocked()),
	}
	mention := map[string]any{
		"type": "app_mention", "channel": m.Channel, "user": m.User, "text": m.Text, "ts": msg.ts,
		"event_ts": msg.ts, "team": TeamID,
	}
	if msg.subtype != "" {
		event["subtype"] = msg.subtype
	}
	if m.BotID != "" {
		event["bot_id"], mention["bot_id"] = m.BotID, m.BotID
	}
	if m.ThreadTS != "" {
		event["thread_ts"], mention["thread_ts"] = m.ThreadTS, m.ThreadTS
		if msg.parentUserID != "" {
			event["parent_user_id"] = msg.parentUserID
		}
	}
	if len(m.Files) > 0 {
		var files []map[string]any
		for _, id := range m.Files {
			if f := s.files[id]; f != nil {
				files = append(files, s.fileJSON(f))
			}
		}
		event["files"], event["upload"] = files, false
		mention["files"] = files
	}
	events := []map[string]any{event}
	if ch.kind != "im" && strings.Contains(m.Text, "<@"+BotUserID) {
		events = append(events, mention)
		if m.MentionFirst {
			events[0], events[1] = mention, event
		}
	}
	p := Posted{Channel: m.Channel, TS: msg.ts, MessageID: m.Channel + ":" + msg.ts}
	p.Envelopes, p.Statuses = s.deliverEventsLocked(events)
	return p
}

// EditMessage changes the text of a person's message, as the person
// editing it would: Slack sends a message_changed event.
func (s *Server) EditMessage(channelID, ts, text string) Posted {
	s.mu.Lock()
	ch := s.channelLocked(channelID)
	m := s.findLocked(channelID, ts)
	if m == nil {
		s.mu.Unlock()
		s.t.Errorf("slacktest: EditMessage: no message %s in %s", ts, channelID)
		return Posted{}
	}
	previous := map[string]any{"type": "message", "user": m.user, "text": m.text, "ts": m.ts}
	m.text = text
	m.edits++
	eventTS := s.tsLocked()
	event := map[string]any{
		"type": "message", "subtype": "message_changed", "hidden": true, "channel": channelID,
		"channel_type": ch.kind, "ts": eventTS, "event_ts": eventTS,
		"message": map[string]any{"type": "message", "user": m.user, "text": text, "ts": m.ts,
			"edited": map[string]any{"user": m.user, "ts": eventTS}},
		"previous_message": previous,
	}
	p := Posted{Channel: channelID, TS: ts, MessageID: channelID + ":" + ts}
	p.Envelopes, p.Statuses = s.deliverEventsLocked([]map[string]any{event})
	return p
}

// PushEvent delivers an inner event as is (wrapped in its event_callback),
// for events the other helpers do not make. It records nothing in the
// channels.
func (s *Server) PushEvent(event map[string]any) Posted {
	s.mu.Lock()
	var p Posted
	p.Envelopes, p.Statuses = s.deliverEventsLocked([]map[string]any{event})
	return p
}

// deliverEventsLocked wraps inner events as event_callback payloads and
// sends them on the socket, or to the Events API endpoint; it unlocks
// s.mu.
func (s *Server) deliverEventsLocked(events []map[string]any) (envelopes []string, statuses []int) {
	var bodies [][]byte
	for _, e := range events {
		body, _ := json.Marshal(map[string]any{
			"token": "verification-token", "team_id": TeamID, "api_app_id": AppID, "event": e,
			"type": "event_callback", "event_id": fmt.Sprintf("Ev%08d", s.nextLocked()),
			"event_time": 1700000000 + s.seq, "is_ext_shared_channel": false,
			"authorizations": []map[string]any{{"team_id": TeamID, "user_id": BotUserID, "is_bot": true}},
		})
		bodies = append(bodies, body)
	}
	target := s.events
	if target == nil {
		for _, b := range bodies {
			envelopes = append(envelopes, s.pushLocked("events_api", b))
		}
	}
	s.notifyLocked()
	s.mu.Unlock()
	if target != nil {
		for _, b := range bodies {
			statuses = append(statuses, s.postToApp(target.eventsURL, target.secret, b))
		}
	}
	return envelopes, statuses
}

// Click presses the button with value on the bot's message ts in a
// channel, as user: a block_actions interaction. It fails when the
// message has no such button.
func (s *Server) Click(channelID, ts, user, value string) (Posted, error) {
	s.mu.Lock()
	m := s.findLocked(channelID, ts)
	if m == nil || m.botID != BotID {
		s.mu.Unlock()
		return Posted{}, fmt.Errorf("slacktest: no message of the bot at %s in %s", ts, channelID)
	}
	_, rows := readBlocks(m.blocks)
	var btn *Button
	for _, row := range rows {
		for i := range row {
			if row[i].Value == value && btn == nil {
				btn = &row[i]
			}
		}
	}
	if btn == nil {
		s.mu.Unlock()
		return Posted{}, fmt.Errorf("slacktest: the message at %s in %s has no button with value %q", ts, channelID, value)
	}
	if _, known := s.users[user]; !known {
		s.users[user] = user
	}
	container := map[string]any{"type": "message", "message_ts": ts, "channel_id": channelID, "is_ephemeral": false}
	msg := map[string]any{"type": "message", "user": m.user, "bot_id": m.botID, "text": m.text, "ts": m.ts, "blocks": m.blocks}
	if m.threadTS != "" {
		container["thread_ts"], msg["thread_ts"] = m.threadTS, m.threadTS
	}
	n := s.nextLocked()
	payload, _ := json.Marshal(map[string]any{
		"type": "block_actions", "token": "verification-token", "api_app_id": AppID,
		"user":      map[string]any{"id": user, "username": s.users[user], "name": s.users[user], "team_id": TeamID},
		"team":      map[string]any{"id": TeamID, "domain": "hermes-test"},
		"channel":   map[string]any{"id": channelID},
		"container": container, "message": msg,
		"trigger_id":   fmt.Sprintf("%d.%d.fake", n, n),
		"response_url": s.hs.URL + "/actions/" + fmt.Sprint(n),
		"state":        map[string]any{"values": map[string]any{}},
		"actions": []map[string]any{{
			"type": "button", "action_id": btn.ActionID, "block_id": btn.BlockID, "value": btn.Value,
			"text": map[string]any{"type": "plain_text", "text": btn.Label}, "action_ts": fmt.Sprintf("%d.%06d", 1700000000+n, n),
		}},
	})
	p := Posted{Channel: channelID, TS: ts, MessageID: channelID + ":" + ts}
	target := s.events
	if target == nil {
		p.Envelopes = append(p.Envelopes, s.pushLocked("interactive", payload))
	}
	s.notifyLocked()
	s.mu.Unlock()
	if target != nil {
		form := []byte(url.Values{"payload": {string(payload)}}.Encode())
		p.Statuses = append(p.Statuses, s.postToApp(target.interactiveURL, target.secret, form))
	}
	return p, nil
}
