package cli

import (
	"context"
	"log/slog"

	"github.com/hermes-go/hermes/config"
	"github.com/hermes-go/hermes/cron"
)

// cronPlatformsFallback stands in for the gateway's cronPlatforms until
// this build has it: every platform delivery fails, saying it needs the
// gateway, so the run's status is delivery_failed (its answer is kept).
func cronPlatformsFallback(ctx context.Context, cfg *config.Config, log *slog.Logger) (cron.Platforms, func(), error) {
	return noPlatforms{}, func() {}, nil
}

type noPlatforms struct{}

func (noPlatforms) Deliver(ctx context.Context, platform, chat, thread, text string) error {
	return cron.ErrNoPlatforms
}
