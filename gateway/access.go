package gateway

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/hermes-go/hermes/internal/slash"
)

// handler is the Handler one adapter's Run talks to.
type handler struct {
	g *Gateway
	a Adapter
}

func (h *handler) State(s State) {
	s.Platform = h.a.Platform()
	h.g.State(s)
}

func (h *handler) Click(ctx context.Context, c Click) {
	c.Platform = h.a.Platform()
	h.g.click(ctx, c)
}

// Message takes one message: a message seen before is dropped; a person
// not allowed gets a pairing code (once) and nothing reaches the model;
// in a group, a message not addressed to the bot is left alone; the rest
// is stored in its chat's queue (or answers a question the chat is
// waiting on, or joins the running turn) before Message returns.
func (h *handler) Message(ctx context.Context, m Inbound) error {
	g := h.g
	m.Platform = h.a.Platform()
	if m.MessageID == "" {
		return errors.New("gateway: a message without an id")
	}
	g.mu.Lock()
	closed := g.closed
	g.mu.Unlock()
	if closed {
		return errors.New("gateway: stopping")
	}
	fresh, err := g.store.Seen(ctx, m.Platform, m.MessageID)
	if err != nil {
		return fmt.Errorf("gateway: dedup: %w", err)
	}
	if !fresh {
		g.log.Info("duplicate message dropped", "platform", m.Platform, "message", m.MessageID)
		return nil
	}
	role, err := g.role(ctx, m.Platform, m.UserID)
	if err != nil {
		return err
	}
	if role == stranger {
		return g.pair(ctx, h.a, m)
	}
	acc := g.o.Access[m.Platform]
	if m.ChatType == Group && !m.Addressed && mentionRequired(acc, m.Chat.ChatID) {
		return nil
	}
	key := g.sessionKey(m)
	c := g.chatFor(key, h.a, m.Chat)
	return c.receive(ctx, m, role == admin)
}

type userRole int

const (
	stranger userRole = iota
	member
	admin
)

// role is what the user may do on the platform: admins may use every
// command, members the safe set, strangers nothing.
func (g *Gateway) role(ctx context.Context, platform, user string) (userRole, error) {
	acc := g.o.Access[platform]
	switch {
	case slices.Contains(acc.Admins, user):
		return admin, nil
	case acc.AllowAll || slices.Contains(acc.Allowed, user):
		return member, nil
	}
	ok, err := g.store.Paired(ctx, platform, user)
	if err != nil {
		return stranger, fmt.Errorf("gateway: pairing: %w", err)
	}
	if ok {
		return member, nil
	}
	return stranger, nil
}

func mentionRequired(acc Access, chatID string) bool {
	if v, ok := acc.Channels[chatID]; ok {
		return v
	}
	return acc.RequireMention
}

// pair answers a stranger: in a direct chat, one reply holding a
// pairing code the owner approves with `hermes pairing approve`; a code
// already given is not sent again, and a group gets nothing.
func (g *Gateway) pair(ctx context.Context, a Adapter, m Inbound) error {
	if m.ChatType != DM {
		g.log.Info("message from a user not allowed in a group ignored", "platform", m.Platform, "user", m.UserID)
		return nil
	}
	code, fresh, err := g.store.RequestPairing(ctx, m.Platform, m.UserID, m.UserName)
	if err != nil {
		g.log.Warn("pairing refused", "platform", m.Platform, "user", m.UserID, "err", err)
		return nil
	}
	if !fresh {
		return nil
	}
	shown := code
	if len(code) == 8 {
		shown = code[:4] + "-" + code[4:]
	}
	text := fmt.Sprintf("I don't know you yet, so I can't answer. Your pairing code is %s (valid for one hour).\n"+
		"The bot's owner can let you in with:\nhermes pairing approve %s %s", shown, m.Platform, code)
	_, err = g.deliver(ctx, Delivery{Platform: m.Platform, Chat: m.Chat, Text: text, Plain: true, SessionKey: "pairing"})
	return err
}

// sessionKey names the chat's conversation: direct chats by user (and
// chat, where the platform's Limits say DMPerChat), groups by chat,
// thread, and user unless GroupSessionsPerUser is off.
func (g *Gateway) sessionKey(m Inbound) string {
	if m.ChatType == DM {
		k := m.Platform + ":dm:" + m.UserID
		if a, ok := g.adapters[m.Platform]; ok && a.Limits().DMPerChat {
			k += ":chat:" + m.Chat.ChatID
		}
		return k
	}
	k := m.Platform + ":group:" + m.Chat.ChatID
	if m.Chat.ThreadID != "" {
		k += ":thread:" + m.Chat.ThreadID
	}
	if g.o.GroupSessionsPerUser {
		k += ":user:" + m.UserID
	}
	return k
}

// safeCommand reports whether every allowed user may run c; the others
// (switching model, reading other sessions, rolling the workspace back,
// reloading MCP servers) are for admins.
func safeCommand(c slash.Command) bool {
	if c.Skill {
		return true
	}
	switch c.Name {
	case "help", "new", "stop", "retry", "undo", "compress", "usage", "title", "context", "status", "approve", "deny",
		"steer", "queue", "btw", "branch":
		return true
	}
	return false
}

// commandName is the slash command a line starts, "" for text; a
// command addressed to the bot by name (/new@hermes_bot) is the command.
func commandName(text string) (name, args string) {
	n, a, ok := slash.Parse(strings.TrimSpace(text))
	if !ok {
		return "", ""
	}
	n, _, _ = strings.Cut(n, "@")
	return n, a
}
