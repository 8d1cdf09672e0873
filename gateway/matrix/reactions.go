package matrix

import (
	"context"
	"encoding/json"
	"strings"
	"sync"

	"maunium.net/go/mautrix"
	"maunium.net/go/mautrix/event"
	"maunium.net/go/mautrix/id"

	"github.com/hermes-go/hermes/gateway"
)

// Matrix has no buttons: a message's buttons are reactions the bot adds
// to it (keys that start with the button's label), and a person's
// reaction with one of those keys is a press of that button.

// reactionButton is a button as a reaction key.
type reactionButton struct {
	Key   string // "Once ✅"
	Label string
	Emoji string
	Data  string
}

// card is a message of the bot's with buttons.
type card struct {
	chat      gateway.ChatRef
	buttons   []reactionButton
	reactions []id.EventID // the bot's own reactions, redacted when the card is closed
}

// emoji marks an approval button's key, for clients that show
// reactions small ("" for other buttons).
func emoji(label string) string {
	switch label {
	case "Once":
		return "✅"
	case "Session":
		return "🔁"
	case "Always":
		return "♾️"
	case "Deny":
		return "❌"
	}
	return ""
}

// reactionKeys are the buttons' reaction keys, row after row.
func reactionKeys(rows [][]gateway.Button) []reactionButton {
	var out []reactionButton
	for _, row := range rows {
		for _, b := range row {
			first, _, _ := strings.Cut(b.Label, " ")
			rb := reactionButton{Key: b.Label, Label: b.Label, Emoji: emoji(first), Data: b.Data}
			if rb.Emoji != "" {
				rb.Key += " " + rb.Emoji
			}
			out = append(out, rb)
		}
	}
	return out
}

// reactionHint is the line under a card that says how to answer it.
func reactionHint(keys []reactionButton) string {
	names := make([]string, len(keys))
	for i, k := range keys {
		names[i] = "“" + k.Key + "”"
	}
	return "React with " + strings.Join(names, ", ") + " (click the reaction below)."
}

// addCard remembers a card and adds its reactions. A reaction that cannot
// be added is logged: the person can still answer with a reply
// (/approve, /deny).
func (a *Adapter) addCard(ctx context.Context, room id.RoomID, chat gateway.ChatRef, evID id.EventID, keys []reactionButton) {
	c := &card{chat: chat, buttons: keys}
	a.mu.Lock()
	a.cards[evID] = c
	a.order = append(a.order, evID)
	if len(a.order) > remembered {
		delete(a.cards, a.order[0])
		a.order = a.order[1:]
	}
	a.mu.Unlock()
	for _, k := range keys {
		rel := &event.ReactionEventContent{RelatesTo: event.RelatesTo{Type: event.RelAnnotation, EventID: evID, Key: k.Key}}
		rID, err := a.sendEvent(ctx, room, event.EventReaction, rel, sendKey("react", string(evID), k.Key))
		if err != nil {
			a.log.Error("matrix reaction not added to a card; it can be answered by reply", "event", evID, "key", k.Key, "err", err)
			continue
		}
		a.mu.Lock()
		c.reactions = append(c.reactions, rID)
		a.mu.Unlock()
	}
}

// closeCard takes the bot's reactions off a card whose buttons an edit
// dropped: the card cannot be answered any more.
func (a *Adapter) closeCard(ctx context.Context, room id.RoomID, evID id.EventID) {
	a.mu.Lock()
	c := a.cards[evID]
	delete(a.cards, evID)
	a.mu.Unlock()
	if c == nil {
		return
	}
	for _, r := range c.reactions {
		cctx, cancel := context.WithTimeout(ctx, callTimeout)
		_, err := a.cli.RedactEvent(cctx, room, r, mautrix.ReqRedact{TxnID: a.txnID()})
		cancel()
		if err != nil {
			a.log.Error("matrix reaction not taken off a closed card", "event", evID, "reaction", r, "err", err)
		}
	}
}

// reaction turns a person's reaction on a card into a press of the
// button with that key; other reactions are ignored.
func (r *run) reaction(ctx context.Context, roomID id.RoomID, evt *event.Event) {
	var rc event.ReactionEventContent
	if err := json.Unmarshal(evt.Content.VeryRaw, &rc); err != nil {
		return
	}
	cardID, key := rc.RelatesTo.EventID, rc.RelatesTo.Key
	r.a.mu.Lock()
	c := r.a.cards[cardID]
	var b *reactionButton
	if c != nil {
		for i, k := range c.buttons {
			if key == k.Key || key == k.Label || k.Emoji != "" && strings.TrimSuffix(key, "\ufe0f") == strings.TrimSuffix(k.Emoji, "\ufe0f") {
				b = &c.buttons[i]
				break
			}
		}
	}
	r.a.mu.Unlock()
	if b == nil {
		return
	}
	var once sync.Once
	chat := c.chat
	r.h.Click(ctx, gateway.Click{
		Platform: r.a.Platform(), Chat: chat, MessageID: string(cardID), UserID: string(evt.Sender), Data: b.Data,
		Answer: func(ctx context.Context, text string) error {
			var err error = errAnswered
			once.Do(func() { err = r.a.answer(ctx, roomID, chat, cardID, evt.Sender, text) })
			return err
		},
	})
}

var errAnswered = &gateway.SendError{Permanent: true, Err: errString("matrix: a press is answered once")}

type errString string

func (e errString) Error() string { return string(e) }

// answer is a press's answer: Matrix has no message only one person
// reads, so it is a notice (m.notice) in the card's room, replying to
// the card and mentioning the person who reacted.
func (a *Adapter) answer(ctx context.Context, room id.RoomID, chat gateway.ChatRef, cardID id.EventID, who id.UserID, text string) error {
	c := &event.MessageEventContent{MsgType: event.MsgNotice, Body: string(who) + ": " + text,
		Mentions: &event.Mentions{UserIDs: []id.UserID{who}}}
	relate(c, chat, string(cardID))
	if _, err := a.sendEvent(ctx, room, event.EventMessage, c, sendKey("answer", string(cardID), string(who), a.txnID())); err != nil {
		return sendError("answer", err)
	}
	return nil
}
