package cli

import (
	"fmt"
	"log/slog"
	"slices"
	"time"

	"github.com/hermes-go/hermes/config"
	"github.com/hermes-go/hermes/gateway"
	"github.com/hermes-go/hermes/gateway/discord"
	"github.com/hermes-go/hermes/gateway/email"
	"github.com/hermes-go/hermes/gateway/matrix"
	"github.com/hermes-go/hermes/gateway/mattermost"
	"github.com/hermes-go/hermes/gateway/signal"
	"github.com/hermes-go/hermes/gateway/slack"
	"github.com/hermes-go/hermes/gateway/telegram"
)

// platformAdapters builds the adapters of the enabled platforms, each
// keeping its resume state in the gateway's store.
func platformAdapters(cfg *config.Config, names []string, store *gateway.Store, log *slog.Logger) ([]gateway.Adapter, error) {
	var out []gateway.Adapter
	ps := cfg.Gateway.Platforms
	for _, name := range names {
		var a gateway.Adapter
		var err error
		l := log.With("platform", name)
		switch name {
		case "telegram":
			t := ps.Telegram
			a, err = telegram.New(telegram.Options{Token: t.Token, APIURL: t.APIURL, WebhookURL: t.WebhookURL,
				WebhookListen: t.WebhookListen, WebhookSecret: t.WebhookSecret, Logger: l, KV: store})
		case "slack":
			s := ps.Slack
			a, err = slack.New(slack.Options{BotToken: s.BotToken, AppToken: s.AppToken, SigningSecret: s.SigningSecret,
				Mode: s.Mode, EventsListen: s.EventsListen, APIURL: s.APIURL, Logger: l, KV: store})
		case "discord":
			d := ps.Discord
			a, err = discord.New(discord.Options{Token: d.Token, APIURL: d.APIURL, Logger: l, KV: store})
		case "signal":
			s := ps.Signal
			a, err = signal.New(signal.Options{HTTPURL: s.HTTPURL, Account: s.Account, Logger: l, KV: store})
		case "mattermost":
			m := ps.Mattermost
			a, err = mattermost.New(mattermost.Options{URL: m.URL, Token: m.Token, ActionsListen: m.ActionsListen,
				ActionsURL: m.ActionsURL, Logger: l, KV: store})
		case "matrix":
			m := ps.Matrix
			a, err = matrix.New(matrix.Options{Homeserver: m.Homeserver, AccessToken: m.AccessToken,
				Inviters: append(slices.Clone(m.AllowedUsers), m.AdminUsers...), AllowAll: m.AllowAll, Logger: l, KV: store})
		case "email":
			e := ps.Email
			a, err = email.New(email.Options{IMAPURL: e.IMAPURL, SMTPURL: e.SMTPURL, User: e.User, Password: e.Password,
				Address: e.Address, Folder: e.Folder, PollInterval: time.Duration(e.PollInterval) * time.Second, Logger: l, KV: store})
		default:
			err = fmt.Errorf("this build has no %s adapter", name)
		}
		if err != nil {
			return nil, fmt.Errorf("gateway: %s: %w", name, err)
		}
		out = append(out, a)
	}
	return out, nil
}
