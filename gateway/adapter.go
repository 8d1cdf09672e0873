package gateway

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"
)

// Adapter is one chat platform (Telegram, Slack, Discord, ...): it turns
// the platform's updates into Inbound messages and Clicks for a Handler,
// and sends, edits and uploads for the gateway. One package per platform
// implements it (gateway/telegram, gateway/slack, gateway/discord).
//
// Send, Edit and Upload are called from any goroutine, also while Run
// runs. Their errors are *SendError when the platform answered (rate
// limited, refused, gone); any other error is a transport failure the
// gateway retries.
type Adapter interface {
	// Platform names the platform ("telegram", "slack", "discord"): the
	// first part of every session key, and its name in config.yaml.
	Platform() string
	// Limits says how text must be cut and formatted for the platform.
	Limits() Limits
	// Run connects and hands every update to h until ctx ends, then
	// returns nil. It reconnects with backoff on its own and reports each
	// change of its connection through h.State; it returns an error only
	// when it cannot run at all (a token the platform refuses).
	Run(ctx context.Context, h Handler) error
	// Send posts a message and returns the platform's id for it.
	Send(ctx context.Context, m Outbound) (Sent, error)
	// Edit replaces the text (and buttons) of a message the bot sent.
	Edit(ctx context.Context, chat ChatRef, messageID string, m Outbound) error
	// Upload sends a file as an attachment, with an optional caption.
	Upload(ctx context.Context, chat ChatRef, f File) (Sent, error)
	// Typing shows that the bot is working, where the platform can.
	Typing(ctx context.Context, chat ChatRef) error
}

// Commands is implemented by an adapter whose platform has a native
// command menu (Telegram's setMyCommands, Discord's application
// commands): the gateway hands it the slash commands it serves.
type Commands interface {
	SetCommands(ctx context.Context, cmds []Command) error
}

// Command is one entry of a platform's command menu.
type Command struct {
	Name        string // without the slash
	Description string
}

// Limits describe a platform's messages.
type Limits struct {
	// MaxText is the most characters (runes) one message may hold.
	MaxText int
	// Format is the markup the platform renders: "html" (Telegram's
	// HTML subset), "mrkdwn" (Slack) or "markdown" (Discord).
	Format string
	// MaxButtonData is the most bytes a button's data may hold (Telegram:
	// 64); 0 means no limit the gateway needs to care about.
	MaxButtonData int
	// Edits says whether a sent message can be edited (streaming by
	// edits needs it).
	Edits bool
	// DMPerChat makes each direct chat a conversation of its own (email:
	// every thread); by default all of a person's direct chats with the
	// bot are one conversation.
	DMPerChat bool
}

// ChatType says what kind of chat a message came from.
type ChatType string

// Chat types.
const (
	DM    ChatType = "dm"
	Group ChatType = "group" // groups, channels, guild channels
)

// ChatRef says where a message goes: a chat, and a thread inside it.
type ChatRef struct {
	ChatID   string
	ThreadID string // "" outside threads
}

// Inbound is one message a person sent.
type Inbound struct {
	Platform string
	Chat     ChatRef
	ChatType ChatType
	// MessageID is the platform's id of the message, unique within the
	// platform (qualify it with the chat where the platform's ids are
	// only unique per chat): the deduplication key.
	MessageID string
	UserID    string
	UserName  string // a display name, for the model and the logs
	Text      string
	// Addressed says the bot was mentioned in the message or the message
	// replies to one of the bot's (in a DM it is always true).
	Addressed bool
	// Attachments are the files sent with the message.
	Attachments []Attachment
}

// Attachment is a file a person sent; Open fetches its content from the
// platform.
type Attachment struct {
	Kind string // "image", "voice", "audio", "video" or "file"
	Name string
	MIME string
	Size int64 // bytes, 0 when unknown
	Open func(ctx context.Context) (io.ReadCloser, error)
}

// Click is a press of one of the bot's buttons.
type Click struct {
	Platform  string
	Chat      ChatRef
	MessageID string // the message holding the button
	UserID    string
	Data      string // the Button's Data
	// Answer replies to the person who clicked only (Telegram's
	// answerCallbackQuery, Slack's ephemeral message, Discord's
	// ephemeral interaction response). It may be called once.
	Answer func(ctx context.Context, text string) error
}

// Handler receives what an adapter's Run reads. Its methods return
// quickly (they queue work); Message returns once the message is stored,
// so an adapter may confirm it to the platform (Telegram's offset) when
// Message returns nil, and must not when it returns an error.
type Handler interface {
	Message(ctx context.Context, m Inbound) error
	Click(ctx context.Context, c Click)
	// State reports the connection: connected, or not and why.
	State(s State)
}

// State is an adapter's connection as `hermes gateway status` shows it.
type State struct {
	Platform  string
	Connected bool
	// Detail says why it is not connected ("409 conflict: another
	// getUpdates with this token", "heartbeat not acknowledged:
	// reconnecting"), or what it is connected as ("@hermes_bot").
	Detail string
	Since  time.Time
}

// Outbound is a message to send.
type Outbound struct {
	Chat ChatRef
	// Text is in the platform's Format unless Plain.
	Text  string
	Plain bool
	// ReplyTo is the id of the message this one answers ("" for none).
	ReplyTo string
	// Buttons are rows of buttons under the message.
	Buttons [][]Button
}

// Button is one button; Data comes back in the Click.
type Button struct {
	Label string
	Data  string
}

// File is an attachment to upload.
type File struct {
	Path    string
	Name    string
	Caption string
}

// Sent is what the platform answered to a send.
type Sent struct {
	MessageID string
}

// SendError is a platform's refusal of a send or an edit.
type SendError struct {
	// RetryAfter is how long the platform asks to wait (Telegram 429
	// retry_after, Slack Retry-After, Discord's bucket reset).
	RetryAfter time.Duration
	// Permanent says a retry can never succeed: the bot was blocked or
	// removed, the chat is gone.
	Permanent bool
	// Format says the platform refused the text's formatting ("can't
	// parse entities"): the gateway sends it again as plain text.
	Format bool
	// NotModified says an edit changed nothing (Telegram "message is not
	// modified"): the message already holds the text.
	NotModified bool
	Status      int // the HTTP status, when there was one
	Err         error
}

func (e *SendError) Error() string {
	switch {
	case e.RetryAfter > 0:
		return fmt.Sprintf("rate limited, retry after %s: %v", e.RetryAfter, e.Err)
	case e.Permanent:
		return fmt.Sprintf("refused for good: %v", e.Err)
	}
	return e.Err.Error()
}

func (e *SendError) Unwrap() error { return e.Err }

// AsSendError returns err's *SendError, if it has one.
func AsSendError(err error) (*SendError, bool) {
	var se *SendError
	ok := errors.As(err, &se)
	return se, ok
}

// KV keeps an adapter's small state across restarts (Telegram's update
// offset, Slack's and Discord's resume points) in the gateway's store.
type KV interface {
	Get(ctx context.Context, key string) (value string, ok bool, err error)
	Set(ctx context.Context, key, value string) error
}

// MemoryKV is a KV held in memory, for an adapter run without the
// gateway's store (its state is lost with the process).
type MemoryKV struct {
	mu sync.Mutex
	m  map[string]string
}

// NewMemoryKV returns an empty MemoryKV.
func NewMemoryKV() *MemoryKV { return &MemoryKV{m: map[string]string{}} }

func (k *MemoryKV) Get(_ context.Context, key string) (string, bool, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	v, ok := k.m[key]
	return v, ok, nil
}

func (k *MemoryKV) Set(_ context.Context, key, value string) error {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.m[key] = value
	return nil
}
