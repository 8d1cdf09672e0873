package gateway

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/hermes-go/hermes/tool/approval"
)

// ask is a question a turn waits on: a dangerous command's approval or
// a clarify question. Only the person whose message started the turn may
// answer; an answer nobody gives in time denies (or, for clarify, says
// nobody answered).
type ask struct {
	id      string
	c       *chat
	user    string      // the requester
	admin   bool        // the requester may answer "always"
	asking  bool        // a clarify question, not an approval
	clarify []string    // its choices
	answer  chan string // "once", "session", "always", "deny", or the clarify answer
}

const (
	approvalPrefix = "ap:"
	clarifyPrefix  = "cl:"
)

func newAskID() string {
	return strings.ToLower(rand.Text()[:10])
}

func (c *chat) addAsk(a *ask) {
	c.g.mu.Lock()
	c.g.asks[a.id] = a
	c.g.mu.Unlock()
	c.mu.Lock()
	c.asks = append(c.asks, a)
	c.mu.Unlock()
}

func (c *chat) dropAsk(a *ask) {
	c.g.mu.Lock()
	delete(c.g.asks, a.id)
	c.g.mu.Unlock()
	c.mu.Lock()
	for i, x := range c.asks {
		if x == a {
			c.asks = append(c.asks[:i], c.asks[i+1:]...)
			break
		}
	}
	c.mu.Unlock()
}

// answer gives a its answer once; later answers are ignored.
func (a *ask) give(v string) bool {
	select {
	case a.answer <- v:
		return true
	default:
		return false
	}
}

// approve posts a dangerous command with its reason and deadline and
// buttons (once, session, always for admins, deny), and waits for the
// requester's answer: a click, /approve or /deny. No answer within
// ApprovalTimeout denies.
func (c *chat) approve(ctx context.Context, p approval.Prompt) (approval.Choice, error) {
	c.mu.Lock()
	user, isAdmin, ref := c.user, c.admin, c.ref
	c.mu.Unlock()
	g := c.g
	a := &ask{id: newAskID(), c: c, user: user, admin: isAdmin, answer: make(chan string, 1)}
	c.addAsk(a)
	defer c.dropAsk(a)

	cmd := p.Command
	if r := []rune(cmd); len(r) > 3000 {
		cmd = string(r[:3000]) + "…"
	}
	wait := g.o.ApprovalTimeout
	text := fmt.Sprintf("⚠ This command needs your approval:\n\n%s\n\nWhy: %s\n\nIf you do not answer within %s it will NOT run. "+
		"Buttons, or /approve [session|always] and /deny.", cmd, p.Description(), humanDuration(wait))
	buttons := [][]Button{{
		{Label: "Once", Data: approvalPrefix + a.id + ":once"},
		{Label: "Session", Data: approvalPrefix + a.id + ":session"},
		{Label: "Always (admins only)", Data: approvalPrefix + a.id + ":always"},
		{Label: "Deny", Data: approvalPrefix + a.id + ":deny"},
	}}
	row, err := g.deliver(ctx, Delivery{Platform: c.a.Platform(), Chat: ref, SessionKey: c.key, Text: text, Plain: true, Buttons: buttons})
	if err != nil {
		return approval.Deny, err
	}
	var verdict string
	select {
	case verdict = <-a.answer:
	case <-g.o.After(wait):
		verdict = "timeout"
	case <-ctx.Done():
		verdict = "stopped"
		// The approver withdraws the card when its own clock runs out
		// (approvals.timeout, the same wait), often before ours does.
		if errors.Is(context.Cause(ctx), approval.ErrNoAnswer) || errors.Is(ctx.Err(), context.DeadlineExceeded) {
			verdict = "timeout"
		}
	}
	choice := map[string]approval.Choice{"once": approval.Once, "session": approval.Session, "always": approval.Always}[verdict]
	note := map[string]string{
		"once": "✅ Approved once.", "session": "✅ Approved for this session.", "always": "✅ Approved for good.",
		"deny": "❌ Denied.", "timeout": "⌛ No answer within " + humanDuration(wait) + ": denied.", "stopped": "⏹ The turn stopped: not run.",
	}[verdict]
	// The card loses its buttons and says what was decided; where
	// messages cannot be edited, the decision answers the card.
	if sent, err := g.senders[c.a.Platform()].Wait(context.WithoutCancel(ctx), row); err == nil && sent.SentID != "" {
		d := Delivery{Platform: c.a.Platform(), Chat: ref, SessionKey: c.key, EditOf: sent.SentID, Text: text + "\n\n" + note, Plain: true}
		if !c.a.Limits().Edits {
			d.EditOf, d.ReplyTo, d.Text = "", sent.SentID, note
		}
		g.deliver(context.WithoutCancel(ctx), d)
	}
	if verdict == "timeout" {
		return approval.Deny, errors.New("nobody answered the approval in time")
	}
	return choice, nil
}

// clarify asks the requester a question, with its choices as buttons; a
// click or the requester's next message answers it.
func (c *chat) clarify(ctx context.Context, question string, choices []string) (string, error) {
	c.mu.Lock()
	user, ref := c.user, c.ref
	c.mu.Unlock()
	g := c.g
	a := &ask{id: newAskID(), c: c, user: user, asking: true, clarify: choices, answer: make(chan string, 1)}
	c.addAsk(a)
	defer c.dropAsk(a)
	var buttons [][]Button
	for i, ch := range choices {
		label := ch
		if r := []rune(label); len(r) > 60 {
			label = string(r[:60]) + "…"
		}
		buttons = append(buttons, []Button{{Label: label, Data: clarifyPrefix + a.id + ":" + strconv.Itoa(i)}})
	}
	text := "❓ " + question
	if len(choices) > 0 {
		text += "\n\n(Pick one, or reply with your own answer.)"
	}
	if _, err := g.deliver(ctx, Delivery{Platform: c.a.Platform(), Chat: ref, SessionKey: c.key, Text: text, Plain: true, Buttons: buttons}); err != nil {
		return "", err
	}
	select {
	case v := <-a.answer:
		return v, nil
	case <-g.o.After(g.o.ApprovalTimeout):
		return "", fmt.Errorf("nobody answered within %s", humanDuration(g.o.ApprovalTimeout))
	case <-ctx.Done():
		return "", ctx.Err()
	}
}

// click answers a question from a button. A click by anyone but the
// requester, or an "always" by someone not an admin, is refused with a
// reply to them alone and changes nothing.
func (g *Gateway) click(ctx context.Context, cl Click) {
	reply := func(text string) {
		if cl.Answer != nil {
			if err := cl.Answer(ctx, text); err != nil {
				g.log.Warn("answering a click", "platform", cl.Platform, "err", err)
			}
		}
	}
	kind, rest, ok := strings.Cut(cl.Data, ":")
	id, value, ok2 := strings.Cut(rest, ":")
	if !ok || !ok2 {
		reply("This button is not one of mine.")
		return
	}
	g.mu.Lock()
	a := g.asks[id]
	g.mu.Unlock()
	if a == nil {
		reply("This question is no longer open.")
		return
	}
	if cl.UserID != a.user {
		g.log.Info("a click by someone other than the requester refused", "platform", cl.Platform, "user", cl.UserID)
		reply("Only the person who asked can answer this.")
		return
	}
	switch kind + ":" {
	case approvalPrefix:
		if a.asking {
			reply("This button is not one of mine.")
			return
		}
		switch value {
		case "once", "session", "deny":
		case "always":
			if !a.admin {
				reply("Only an admin can approve for good; choose Once or Session.")
				return
			}
		default:
			reply("This button is not one of mine.")
			return
		}
		if a.give(value) {
			reply(map[string]string{"once": "Approved once.", "session": "Approved for this session.", "always": "Approved for good.", "deny": "Denied."}[value])
		}
	case clarifyPrefix:
		if !a.asking {
			reply("This button is not one of mine.")
			return
		}
		i, err := strconv.Atoi(value)
		if err != nil || i < 0 || i >= len(a.clarify) {
			reply("This button is not one of mine.")
			return
		}
		if a.give(a.clarify[i]) {
			reply("Answered: " + a.clarify[i])
		}
	default:
		reply("This button is not one of mine.")
	}
}

// answerCommand handles /approve [session|always] and /deny: they answer
// the chat's open approval, bypassing the busy queue.
func (c *chat) answerCommand(ctx context.Context, m Inbound, name, args string) {
	c.mu.Lock()
	var a *ask
	for i := len(c.asks) - 1; i >= 0; i-- {
		if !c.asks[i].asking {
			a = c.asks[i]
			break
		}
	}
	c.mu.Unlock()
	if a == nil {
		c.say(ctx, m, "No command is waiting for approval here.")
		return
	}
	if m.UserID != a.user {
		c.say(ctx, m, "Only the person who asked can answer this.")
		return
	}
	v := "deny"
	if name == "approve" {
		v = "once"
		switch strings.ToLower(strings.TrimSpace(args)) {
		case "", "once":
		case "session":
			v = "session"
		case "always":
			if !a.admin {
				c.say(ctx, m, "Only an admin can approve for good; use /approve or /approve session.")
				return
			}
			v = "always"
		default:
			c.say(ctx, m, "/approve takes once, session or always.")
			return
		}
	}
	a.give(v)
}

// answerText answers the chat's open clarify question with the
// requester's message; it reports whether there was one.
func (c *chat) answerText(_ context.Context, m Inbound) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	for i := len(c.asks) - 1; i >= 0; i-- {
		if a := c.asks[i]; a.asking && a.user == m.UserID {
			return a.give(m.Text)
		}
	}
	return false
}

func humanDuration(d time.Duration) string {
	switch {
	case d >= time.Minute && d%time.Minute == 0:
		n := int(d / time.Minute)
		if n == 1 {
			return "1 minute"
		}
		return strconv.Itoa(n) + " minutes"
	case d >= time.Second:
		n := int(d.Round(time.Second) / time.Second)
		if n == 1 {
			return "1 second"
		}
		return strconv.Itoa(n) + " seconds"
	}
	return d.String()
}
