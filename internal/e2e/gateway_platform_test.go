package e2e

import (
	"testing"
	"time"
)

// The gateway's conformance suite drives `hermes gateway` through each
// chat platform's fake: every scenario runs once per platform, through a
// chatFake. A platform joins the suite with one file that registers its
// driver (gateway_telegram_test.go, gateway_slack_test.go, ...).

// person is someone who writes to the bot; every platform has the same
// three, under its own ids.
type person string

const (
	alice   person = "alice"   // an admin
	bob     person = "bob"     // an allowed user
	mallory person = "mallory" // nobody let her in
)

// chatRef names a chat of the fake, in the driver's own terms.
type chatRef string

// botMessage is one of the bot's messages as the chat's members read it
// now.
type botMessage struct {
	ID      string
	Text    string
	Buttons []string // the labels, row after row
	// History is what members read after the bot sent it, then after
	// each edit.
	History []string
}

// replyCall is one request of the bot that writes a message in a chat
// (a send or an edit), as the platform answered it.
type replyCall struct {
	At      time.Time
	Limited bool // answered with a rate limit
	OK      bool
}

// chatFake drives one platform's fake for the suite.
type chatFake interface {
	// env points hermes at the fake: its tokens and API URL, alice as an
	// admin and bob as an allowed user.
	env() []string
	// dm is p's direct chat with the bot; group a group chat of the
	// three people and the bot.
	dm(p person) chatRef
	group() chatRef
	// say posts p's message in c (mentioning the bot in a group) and
	// returns it, for redeliver.
	say(t *testing.T, p person, c chatRef, text string) any
	// redeliver delivers a message said before to the bot again, as the
	// platform does when it believes a delivery was lost.
	redeliver(t *testing.T, m any)
	// messages are the bot's messages in c.
	messages(c chatRef) []botMessage
	// press clicks the button labelled label on m as p, and returns what
	// only p was answered, once the bot answered.
	press(t *testing.T, p person, c chatRef, m botMessage, label string) string
	// holdSends keeps the bot's new messages (not edits) in flight,
	// unanswered, until releaseSends; heldSends counts those held now.
	holdSends()
	releaseSends()
	heldSends() int
	// rateLimitNextSend answers the bot's next new message with a rate
	// limit of seconds; earlyRetries counts the messages the bot wrote
	// to a chat before its rate limit had passed.
	rateLimitNextSend(seconds int)
	earlyRetries() int
	// replyCalls are the bot's sends and edits to c, in order.
	replyCalls(c chatRef) []replyCall
	// disconnect cuts the bot's connection for updates, and keeps it
	// from connecting again until reconnect.
	disconnect(t *testing.T)
	reconnect(t *testing.T)
	// waitFor waits until cond holds, waking on each change to the fake;
	// it reports whether cond held before the timeout.
	waitFor(timeout time.Duration, cond func() bool) bool
	// edits says whether the bot can edit a message it sent: streaming
	// by edits needs it, and an approval card is closed by an edit
	// (elsewhere the decision answers the card in a new message).
	edits() bool
}

// chatPlatform is a platform of the suite: its name in hermes and how to
// start its fake for a test.
type chatPlatform struct {
	name  string
	start func(t *testing.T) chatFake
}

// chatPlatforms are the registered platforms, in registration order.
var chatPlatforms []chatPlatform

func registerChatPlatform(name string, start func(t *testing.T) chatFake) {
	chatPlatforms = append(chatPlatforms, chatPlatform{name: name, start: start})
}
