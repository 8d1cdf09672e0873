package slacktest

import (
	"encoding/json"
	"strings"
)

type channel struct {
	id   string
	kind string // "im", "channel", "group" or "mpim"
	msgs []*message
}

type message struct {
	ts, threadTS   string
	user, botID    string
	text           string
	mrkdwn         bool
	blocks         json.RawMessage
	files          []string // file ids
	edits          int
	subtype        string
	parentUserID   string
	initialComment bool
	history        []string // what readers saw after the post and after each update
}

// Message is a message as a channel's members see it.
type Message struct {
	Channel  string
	TS       string
	ThreadTS string // "" for a message outside a thread
	User     string
	BotID    string // set on the bot's messages
	// Text is the message's text: what Slack shows when there are no
	// blocks, and the notification text when there are.
	Text string
	// Mrkdwn is false when the bot asked for the text not to be
	// formatted (mrkdwn=false).
	Mrkdwn bool
	// Sections are the texts of the section blocks, in order.
	Sections []string
	// Buttons are the buttons of the actions blocks, a row per block.
	Buttons [][]Button
	Blocks  json.RawMessage
	// Files are the ids of the files shared with the message.
	Files []string
	// Edits counts the chat.update calls that changed the message.
	Edits int
	// History is what a member read (Shown) after the bot posted the
	// message, then after each chat.update, in order.
	History []string
}

// remember adds what the message shows now to its history.
func (m *message) remember() {
	m.history = append(m.history, m.view("").Shown())
}

// Shown is what a member reads: the sections when the message has
// blocks, else its text.
func (m Message) Shown() string {
	if len(m.Sections) > 0 {
		return strings.Join(m.Sections, "\n")
	}
	return m.Text
}

// Button is one button of a message.
type Button struct {
	Label    string
	Value    string
	ActionID string
	BlockID  string
}

// Ephemeral is a message only one person saw (chat.postEphemeral).
type Ephemeral struct {
	Channel  string
	User     string
	ThreadTS string
	Text     string
	TS       string
}

// Messages returns a channel's messages in the order they were posted,
// thread replies included, as they read now.
func (s *Server) Messages(channelID string) []Message {
	s.mu.Lock()
	defer s.mu.Unlock()
	c := s.channels[channelID]
	if c == nil {
		return nil
	}
	out := make([]Message, 0, len(c.msgs))
	for _, m := range c.msgs {
		out = append(out, m.view(channelID))
	}
	return out
}

// BotMessages returns the bot's messages in a channel.
func (s *Server) BotMessages(channelID string) []Message {
	var out []Message
	for _, m := range s.Messages(channelID) {
		if m.BotID == BotID {
			out = append(out, m)
		}
	}
	return out
}

// Message returns one message of a channel by its ts.
func (s *Server) Message(channelID, ts string) (Message, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if m := s.findLocked(channelID, ts); m != nil {
		return m.view(channelID), true
	}
	return Message{}, false
}

// Ephemerals returns the ephemeral messages a person saw in a channel.
func (s *Server) Ephemerals(channelID, user string) []Ephemeral {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []Ephemeral
	for _, e := range s.ephemerals {
		if e.Channel == channelID && e.User == user {
			out = append(out, e)
		}
	}
	return out
}

func (s *Server) findLocked(channelID, ts string) *message {
	c := s.channels[channelID]
	if c == nil {
		return nil
	}
	for _, m := range c.msgs {
		if m.ts == ts {
			return m
		}
	}
	return nil
}

// channelLocked returns a channel, making it on first use: a D-prefixed
// id is a DM, any other a public channel.
func (s *Server) channelLocked(id string) *channel {
	c := s.channels[id]
	if c == nil {
		kind := "channel"
		if strings.HasPrefix(id, "D") {
			kind = "im"
		}
		c = &channel{id: id, kind: kind}
		s.channels[id] = c
	}
	return c
}

func (m *message) view(channelID string) Message {
	v := Message{
		Channel: channelID, TS: m.ts, ThreadTS: m.threadTS, User: m.user, BotID: m.botID,
		Text: m.text, Mrkdwn: m.mrkdwn, Files: append([]string(nil), m.files...), Edits: m.edits,
		Blocks:  append(json.RawMessage(nil), m.blocks...),
		History: append([]string(nil), m.history...),
	}
	v.Sections, v.Buttons = readBlocks(m.blocks)
	return v
}

type blockJSON struct {
	Type    string `json:"type"`
	BlockID string `json:"block_id"`
	Text    *struct {
		Type string `json:"type"`
		Text string `json:"text"`
	} `json:"text"`
	Elements []struct {
		Type     string `json:"type"`
		ActionID string `json:"action_id"`
		Value    string `json:"value"`
		Text     *struct {
			Type string `json:"type"`
			Text string `json:"text"`
		} `json:"text"`
	} `json:"elements"`
}

func readBlocks(raw json.RawMessage) (sections []string, buttons [][]Button) {
	var blocks []blockJSON
	if len(raw) == 0 || json.Unmarshal(raw, &blocks) != nil {
		return nil, nil
	}
	for _, b := range blocks {
		switch b.Type {
		case "section":
			if b.Text != nil {
				sections = append(sections, b.Text.Text)
			}
		case "actions":
			var row []Button
			for _, e := range b.Elements {
				if e.Type != "button" {
					continue
				}
				btn := Button{Value: e.Value, ActionID: e.ActionID, BlockID: b.BlockID}
				if e.Text != nil {
					btn.Label = e.Text.Text
				}
				row = append(row, btn)
			}
			buttons = append(buttons, row)
		}
	}
	return sections, buttons
}
