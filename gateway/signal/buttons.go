package signal

import (
	"context"
	"strconv"
	"strings"
	"time"

	"github.com/hermes-go/hermes/gateway"
)

// Signal has no buttons: a message's buttons are listed under its text,
// each after a keycap emoji (1️⃣, 2️⃣, ...), and a reaction with that
// emoji on the message is the button's press, a gateway.Click from the
// person who reacted (the gateway lets only the requester's count).

// ButtonsHeader is the line above the listed buttons.
const ButtonsHeader = "React to choose:"

// keycaps are the emoji of the first ten buttons; a message lists at
// most ten.
var keycaps = []string{"1️⃣", "2️⃣", "3️⃣", "4️⃣", "5️⃣", "6️⃣", "7️⃣", "8️⃣", "9️⃣", "🔟"}

// card is one of the bot's messages with buttons: the data of each
// button by its emoji.
type card map[string]string

// renderButtons lists the buttons under a text, one a line.
func renderButtons(rows [][]gateway.Button) string {
	var b strings.Builder
	i := 0
	for _, row := range rows {
		for _, btn := range row {
			if i >= len(keycaps) {
				break
			}
			if i == 0 {
				b.WriteString("\n\n" + ButtonsHeader)
			}
			b.WriteString("\n" + keycaps[i] + " " + btn.Label)
			i++
		}
	}
	return b.String()
}

// bare is an emoji without variation selectors, as apps differ in
// sending them.
func bare(emoji string) string { return strings.ReplaceAll(emoji, "\ufe0f", "") }

// remember keeps (or, without buttons, forgets) a message's buttons for
// the reactions to come; the oldest are forgotten past maxCards.
func (a *Adapter) remember(chat string, ts int64, rows [][]gateway.Button) {
	key := chat + "\x00" + strconv.FormatInt(ts, 10)
	c := card{}
	i := 0
	for _, row := range rows {
		for _, btn := range row {
			if i < len(keycaps) {
				c[bare(keycaps[i])] = btn.Data
			}
			i++
		}
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if _, ok := a.cards[key]; ok {
		for j, k := range a.order {
			if k == key {
				a.order = append(a.order[:j], a.order[j+1:]...)
				break
			}
		}
		delete(a.cards, key)
	}
	if len(c) == 0 {
		return
	}
	a.cards[key] = c
	a.order = append(a.order, key)
	for len(a.order) > maxCards {
		delete(a.cards, a.order[0])
		a.order = a.order[1:]
	}
}

// pressed is the data of the button a reaction picks on the bot's
// message ts in chat, if it is one. A reaction can come before the
// daemon has answered the send of its message: while a message with
// buttons is being sent, an unknown one waits for the sends to end.
func (a *Adapter) pressed(ctx context.Context, chat string, ts int64, emoji string) (string, bool) {
	key := chat + "\x00" + strconv.FormatInt(ts, 10)
	deadline := time.NewTimer(callTimeout)
	defer deadline.Stop()
	for {
		a.mu.Lock()
		c, known := a.cards[key]
		pending, settled := a.sending, a.settled
		a.mu.Unlock()
		if known || pending == 0 {
			data, ok := c[bare(emoji)]
			return data, ok
		}
		select {
		case <-settled:
		case <-deadline.C:
			return "", false
		case <-ctx.Done():
			return "", false
		}
	}
}

// sendingCard counts a send of a message with buttons until done is
// called.
func (a *Adapter) sendingCard() (done func()) {
	a.mu.Lock()
	a.sending++
	a.mu.Unlock()
	return func() {
		a.mu.Lock()
		defer a.mu.Unlock()
		if a.sending--; a.sending == 0 {
			close(a.settled)
			a.settled = make(chan struct{})
		}
	}
}
