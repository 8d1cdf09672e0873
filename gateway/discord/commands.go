package discord

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"unicode/utf8"

	"github.com/bwmarrin/discordgo"

	"github.com/hermes-go/hermes/gateway"
	"github.com/hermes-go/hermes/internal/lazyre"
)

// Discord's limits on the command menu.
const (
	maxCommands           = 100 // global slash commands of an application
	maxCommandDescription = 100
	// textOption is the one option every command has: what the person
	// types after the command.
	textOption            = "text"
	textOptionDescription = "what follows the command"
)

// commandName is the form of a command name the adapter registers:
// Discord's names are lowercase, 1 to 32 characters.
var commandName = lazyre.New(`^[-_a-z0-9]{1,32}$`)

// menu is the command menu the gateway asked for, and which of the
// lists Discord holds. A list set before READY waits for the application
// id READY brings.
type menu struct {
	registering sync.Mutex  // one bulk overwrite at a time
	retrying    atomic.Bool // a registration after READY is retrying

	mu   sync.Mutex
	app  string // the application id, from READY
	cmds []*discordgo.ApplicationCommand
	gen  int // counts the lists set
	done int // the gen Discord holds
}

// SetCommands fills Discord's command menu with cmds: global application
// commands, registered with one bulk overwrite (PUT
// /applications/{id}/commands), each a slash command with its
// description and one optional string option, "text", for what follows
// the command. Names Discord refuses are left out and logged, as are
// duplicates and commands beyond the 100th; a description is cut to 100
// characters. Before the session is READY (which names the application)
// the list is kept and registered once READY arrives, with Run's context;
// SetCommands then returns nil and a failure is logged.
func (a *Adapter) SetCommands(ctx context.Context, cmds []gateway.Command) error {
	list := a.menuList(cmds)
	m := &a.menu
	m.mu.Lock()
	m.cmds = list
	m.gen++
	app := m.app
	m.mu.Unlock()
	if app == "" {
		a.log.Debug("discord: the command menu waits for READY", "commands", len(list))
		return nil
	}
	return a.registerMenu(ctx)
}

// menuList turns the gateway's commands into Discord's, leaving out what
// Discord would refuse.
func (a *Adapter) menuList(cmds []gateway.Command) []*discordgo.ApplicationCommand {
	list := []*discordgo.ApplicationCommand{}
	seen := map[string]bool{}
	for _, c := range cmds {
		switch {
		case !commandName.Get().MatchString(c.Name):
			a.log.Warn("discord: command left out of the menu: Discord takes names of 1 to 32 characters a-z, 0-9, - and _",
				"command", c.Name)
			continue
		case seen[c.Name]:
			a.log.Warn("discord: command left out of the menu: named twice", "command", c.Name)
			continue
		case len(list) == maxCommands:
			a.log.Warn("discord: command left out of the menu: Discord takes at most 100", "command", c.Name)
			continue
		}
		seen[c.Name] = true
		list = append(list, &discordgo.ApplicationCommand{
			Type:        discordgo.ChatApplicationCommand,
			Name:        c.Name,
			Description: commandDescription(c),
			Options: []*discordgo.ApplicationCommandOption{{
				Type:        discordgo.ApplicationCommandOptionString,
				Name:        textOption,
				Description: textOptionDescription,
			}},
		})
	}
	return list
}

// commandDescription is a command's description on one line, 1 to 100
// characters: cut with an ellipsis when longer, the command itself when
// empty.
func commandDescription(c gateway.Command) string {
	d := strings.Join(strings.Fields(c.Description), " ")
	if d == "" {
		d = "/" + c.Name
	}
	if utf8.RuneCountInString(d) <= maxCommandDescription {
		return d
	}
	r := []rune(d)
	return strings.TrimRight(string(r[:maxCommandDescription-1]), " ") + "…"
}

// registerMenu sends the latest list to Discord unless Discord holds it
// already, or the application id is not known yet.
func (a *Adapter) registerMenu(ctx context.Context) error {
	m := &a.menu
	m.registering.Lock()
	defer m.registering.Unlock()
	m.mu.Lock()
	app, cmds, gen, done := m.app, m.cmds, m.gen, m.done
	m.mu.Unlock()
	if app == "" || gen == done {
		return nil
	}
	op := fmt.Sprintf("register the command menu (%d commands)", len(cmds))
	if err := a.bucketFree(op, discordgo.EndpointApplicationGlobalCommands(app)); err != nil {
		return err
	}
	var ans answer
	if _, err := a.s.ApplicationCommandBulkOverwrite(app, "", cmds, a.call(ctx, &ans)...); err != nil {
		return classify(op, err, &ans)
	}
	m.mu.Lock()
	m.done = gen
	m.mu.Unlock()
	a.log.Info("discord: command menu registered", "commands", len(cmds))
	return nil
}

// menuReady learns the application id from READY and registers a list
// that waited for it. A refusal (a 4xx) is logged and not retried;
// Discord out of reach, a 5xx or a 429 is retried with backoff while Run
// runs.
func (a *Adapter) menuReady(app string) {
	m := &a.menu
	m.mu.Lock()
	if app != "" {
		m.app = app
	}
	pending := m.app != "" && m.gen != m.done
	m.mu.Unlock()
	if app == "" {
		a.log.Warn("discord: READY did not name the application: no command menu")
		return
	}
	if !pending || !m.retrying.CompareAndSwap(false, true) {
		return
	}
	_, ctx := a.handler()
	if ctx == nil {
		m.retrying.Store(false)
		return
	}
	go func() {
		defer m.retrying.Store(false)
		wait := a.o.Backoff
		for {
			err := a.registerMenu(ctx)
			if err == nil || ctx.Err() != nil {
				return
			}
			se, answered := gateway.AsSendError(err)
			if answered && se.RetryAfter == 0 && se.Status < http.StatusInternalServerError {
				a.log.Error("discord: Discord refused the command menu", "err", err)
				return
			}
			d := wait
			if answered && se.RetryAfter > d {
				d = se.RetryAfter
			}
			a.log.Warn("discord: registering the command menu failed", "err", err, "retry_in", d)
			if !a.sleep(ctx, d) {
				return
			}
			wait = min(2*wait, a.o.MaxBackoff)
		}
	}()
}
