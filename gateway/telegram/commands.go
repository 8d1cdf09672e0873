package telegram

import (
	"context"

	"github.com/go-telegram/bot"
	"github.com/go-telegram/bot/models"

	"github.com/hermes-go/hermes/gateway"
	"github.com/hermes-go/hermes/internal/lazyre"
)

// commandName is what Telegram takes as a command: 1 to 32 lowercase
// letters, digits and underscores.
var commandName = lazyre.New(`^[a-z0-9_]{1,32}$`)

// SetCommands sets the bot's command menu. Telegram refuses the whole
// list for one bad entry, so a name it would refuse (a skill named
// "web-search") is left out and logged; descriptions are cut to 256
// characters; at most 100 commands are kept.
func (a *Adapter) SetCommands(ctx context.Context, cmds []gateway.Command) error {
	list := []models.BotCommand{}
	for _, c := range cmds {
		if !commandName.Get().MatchString(c.Name) {
			a.log.Warn("telegram command menu: name Telegram does not take, left out", "command", c.Name)
			continue
		}
		if len(list) == 100 {
			a.log.Warn("telegram command menu: more than 100 commands, the rest left out", "first_left_out", c.Name)
			break
		}
		desc := truncate(c.Description, 256)
		if desc == "" {
			desc = c.Name
		}
		list = append(list, models.BotCommand{Command: c.Name, Description: desc})
	}
	ctx, cancel := context.WithTimeout(ctx, callTimeout)
	defer cancel()
	_, err := a.bot.SetMyCommands(ctx, &bot.SetMyCommandsParams{Commands: list})
	return sendError("setMyCommands", err)
}
