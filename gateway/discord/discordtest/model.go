package discordtest

import (
	"encoding/json"
	"net/http"
	"net/url"
	"time"
)

// Discord's channel types the fake knows.
const (
	GuildText    = 0
	DMChannel    = 1
	PublicThread = 11
)

// User is a Discord account: a person, or the bot itself.
type User struct {
	ID         string
	Username   string
	GlobalName string
	Bot        bool
}

func (u User) wire() map[string]any {
	m := map[string]any{
		"id": u.ID, "username": u.Username, "discriminator": "0",
		"global_name": nil, "avatar": nil, "bot": u.Bot,
	}
	if u.GlobalName != "" {
		m["global_name"] = u.GlobalName
	}
	return m
}

// Channel is a guild text channel, a DM or a thread (a channel whose
// ParentID is the channel it was started in).
type Channel struct {
	ID       string
	GuildID  string // "" for a DM
	ParentID string // threads only
	Type     int    // GuildText, DMChannel or PublicThread
	Name     string
}

func (c Channel) wire() map[string]any {
	m := map[string]any{"id": c.ID, "type": c.Type, "name": c.Name}
	if c.GuildID != "" {
		m["guild_id"] = c.GuildID
	}
	if c.ParentID != "" {
		m["parent_id"] = c.ParentID
	}
	return m
}

// Attachment is a file on a message. The fake serves Data at URL.
type Attachment struct {
	ID          string
	Filename    string
	ContentType string
	Data        []byte
	URL         string // set by the fake
	Voice       bool   // a voice message (duration and waveform set)
}

func (a Attachment) wire() map[string]any {
	m := map[string]any{
		"id": a.ID, "filename": a.Filename, "size": len(a.Data),
		"url": a.URL, "proxy_url": a.URL,
	}
	if a.ContentType != "" {
		m["content_type"] = a.ContentType
	}
	if a.Voice {
		m["duration_secs"] = 2.5
		m["waveform"] = "AAAA"
	}
	return m
}

// Button is one button of a message's components as the fake stored it.
type Button struct {
	Label    string
	CustomID string
	Style    int // 1 primary, 2 secondary, 3 success, 4 danger
}

// Message is a message as the people in its channel see it: the latest
// content after edits, its buttons, its attachments.
type Message struct {
	ID        string
	ChannelID string
	GuildID   string
	Author    User
	Content   string
	// ReplyTo is the id of the message this one replies to.
	ReplyTo     string
	Mentions    []User
	Attachments []Attachment
	Buttons     [][]Button
	Flags       int // 64: ephemeral
	Edits       int // how many times it was edited
	// History is the content as members read it after the bot sent the
	// message, then after each edit (the bot's messages only).
	History []string
	// AllowedMentions is the allowed_mentions object the bot sent, raw.
	AllowedMentions json.RawMessage
}

// Ephemeral says only the person who clicked sees the message.
func (m Message) Ephemeral() bool { return m.Flags&64 != 0 }

// Interaction types the fake sends.
const (
	CommandInteraction   = 2 // APPLICATION_COMMAND: a slash command
	ComponentInteraction = 3 // MESSAGE_COMPONENT: a button press
)

// Interaction is a press of a button or a use of a slash command, and
// what the bot answered to it.
type Interaction struct {
	ID        string
	Type      int // CommandInteraction or ComponentInteraction
	Token     string
	MessageID string // the message holding the button
	ChannelID string
	GuildID   string
	User      User
	CustomID  string
	// Command is the slash command used, Text the value of its "text"
	// option ("" when the person gave none).
	Command string
	Text    string
	// Callbacks are the response types the bot sent to the callback
	// endpoint, in order (6: deferred update, 4: a message, 7: update).
	Callbacks []int
	// Replies are the messages the bot answered with: type 4 responses
	// and followups, ephemeral ones (only User sees them) or not (they
	// are also in the channel).
	Replies []Message
}

// Request is one REST call the fake received.
type Request struct {
	Method string
	Path   string // without the /api/v9 prefix
	Query  url.Values
	Header http.Header
	Body   []byte
	// JSON is the decoded JSON body, or a multipart body's payload_json.
	JSON  map[string]any
	Files []File // a multipart body's files
	// Status is what the fake answered; 0 for a held call whose client
	// went away before it was answered.
	Status int
	At     time.Time
}

// File is one file of a multipart request.
type File struct {
	Field       string
	Name        string
	ContentType string
	Data        []byte
}

// Op is one gateway payload a client sent on a websocket.
type Op struct {
	Conn int // the connection, counted from 1
	Op   int
	Data json.RawMessage
}
