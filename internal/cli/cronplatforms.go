package cli

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/hermes-go/hermes/config"
	"github.com/hermes-go/hermes/cron"
	"github.com/hermes-go/hermes/gateway"
)

// outbox delivers unattended runs' answers (cron jobs, webhook runs) to
// chat platforms from a process that is not the gateway: it opens the
// gateway's store and send-only adapters the first time it is used, so
// a run delivering to a file never touches them.
type outbox struct {
	cfg *config.Config
	log *slog.Logger

	once  sync.Once
	ob    *gateway.Outbox
	store *gateway.Store
	err   error
	stop  context.CancelFunc
	done  chan struct{}
}

// homeChannels is each enabled platform's configured home channel.
func homeChannels(cfg *config.Config) map[string]string {
	home := map[string]string{}
	for _, name := range cfg.GatewayPlatforms() {
		home[name] = cfg.Gateway.Platforms.Settings(name).HomeChannel
	}
	return home
}

// cronPlatforms returns the chat platforms of a process beside the
// gateway, and the function that finishes the sends in flight and
// closes them.
func cronPlatforms(cfg *config.Config, log *slog.Logger) (cron.Platforms, func()) {
	o := &outbox{cfg: cfg, log: log}
	return o, o.close
}

func (o *outbox) open() {
	store, err := gateway.OpenStore(gateway.StorePath(o.cfg.Home), time.Now)
	if err != nil {
		o.err = fmt.Errorf("opening the gateway's delivery ledger: %w", err)
		return
	}
	adapters, err := platformAdapters(o.cfg, o.cfg.GatewayPlatforms(), store, o.log)
	if err != nil {
		store.Close()
		o.err = err
		return
	}
	o.store = store
	o.ob = gateway.NewOutbox(store, adapters, gateway.OutboxOptions{Home: homeChannels(o.cfg), Logger: o.log, Wait: o.cfg.Cron.Delivery()})
	ctx, cancel := context.WithCancel(context.Background())
	o.stop, o.done = cancel, make(chan struct{})
	go func() {
		defer close(o.done)
		o.ob.Run(ctx)
	}()
}

// Deliver sends text to a platform's chat ("" for its home channel).
func (o *outbox) Deliver(ctx context.Context, platform, chat, thread, text string) error {
	o.once.Do(o.open)
	if o.err != nil {
		return o.err
	}
	return o.ob.Deliver(ctx, platform, chat, thread, text)
}

func (o *outbox) close() {
	o.once.Do(func() {}) // nothing opens after close
	if o.stop == nil {
		return
	}
	o.stop()
	<-o.done
	if err := o.store.Close(); err != nil {
		o.log.Warn("closing the gateway's store", "err", err)
	}
}
