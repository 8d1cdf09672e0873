package cli

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/hermes-go/hermes/app"
	"github.com/hermes-go/hermes/config"
	"github.com/hermes-go/hermes/cron"
	"github.com/hermes-go/hermes/gateway"
	"github.com/hermes-go/hermes/gateway/apiserver"
)

// runGateway runs every platform cfg enables, and the API server when
// it is enabled, on one runtime until SIGINT or SIGTERM; then it drains
// (running turns finish, their replies are delivered) and returns nil.
func runGateway(ctx context.Context, e *env, f *runFlags, cfg *config.Config) error {
	platforms := cfg.GatewayPlatforms()
	api := cfg.Gateway.APIServer
	hooks := cfg.Webhooks.Any() // served by the API server
	if len(platforms) == 0 && !api.Enabled && !hooks {
		return &exitError{code: exitUsage, err: fmt.Errorf("no gateway platform is enabled: run hermes gateway setup PLATFORM (%s), "+
			"or set a platform's variables (TELEGRAM_BOT_TOKEN, ...), or gateway.api_server.enabled: true, or a webhook route",
			strings.Join(config.GatewayPlatformNames(), ", "))}
	}
	if err := cfg.CheckGateway(); err != nil {
		return &exitError{code: exitUsage, err: err}
	}
	apiAddr := net.JoinHostPort(api.Host, strconv.Itoa(api.Port))
	if api.Enabled || hooks {
		if err := apiserver.CheckAddr(apiAddr, api.AllowPublic); err != nil {
			return &exitError{code: exitUsage, err: err}
		}
		if api.Key == "" && !hooks {
			return &exitError{code: exitUsage, err: apiserver.ErrNoKey}
		}
		if err := cfg.CheckWebhooks(); err != nil {
			return &exitError{code: exitUsage, err: err}
		}
	}
	unlock, err := lockGateway(cfg.Home)
	if err != nil {
		return &exitError{code: exitFailed, err: err}
	}
	defer unlock()

	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	transport := apiTransport(max(cfg.Gateway.MaxConcurrentTurns, api.MaxConcurrentRuns))
	rt, err := app.New(ctx, cfg, app.Options{
		Source: "gateway", NoStream: f.noStream, Getenv: e.getenv,
		HTTPClient: &http.Client{Transport: transport},
		OnWarning:  func(s string) { e.warn(s) },
	})
	if err != nil {
		return &exitError{code: exitFor(err), err: err}
	}
	defer rt.Close()
	if line, short := statusLine(rt.Backend(), rt.SandboxStatus()); short {
		e.warn(line)
	}
	log := slog.New(slog.NewTextHandler(e.stderr, &slog.HandlerOptions{Level: slog.LevelInfo}))

	done := make(chan error, 2)
	running := 0
	var deliver cron.Platforms // where cron jobs and webhook runs deliver
	if len(platforms) > 0 {
		store, err := gateway.OpenStore(gateway.StorePath(cfg.Home), time.Now)
		if err != nil {
			return &exitError{code: exitFailed, err: err}
		}
		defer store.Close()
		adapters, err := platformAdapters(cfg, platforms, store, log)
		if err != nil {
			return &exitError{code: exitUsage, err: err}
		}
		o := gatewayOptions(cfg, f, rt, store, adapters, log)
		o.OnIdle = transport.CloseIdleConnections
		g, err := gateway.New(o)
		if err != nil {
			return &exitError{code: exitUsage, err: err}
		}
		deliver = g.Outbox(gateway.OutboxOptions{Home: homeChannels(cfg), Wait: cfg.Cron.Delivery(), Logger: log})
		running++
		fmt.Fprintf(e.stderr, "hermes: gateway serving %s (model %s, workspace %s)\n", strings.Join(platforms, ", "), rt.Endpoint().Model, rt.Workdir())
		go func() { done <- g.Run(ctx) }()
	}
	if deliver == nil {
		p, closeP := cronPlatforms(cfg, log)
		defer closeP()
		deliver = p
	}
	if api.Enabled || hooks {
		running++
		go func() { done <- serveAPIOn(ctx, e, rt, transport, cfg, apiAddr, deliver) }()
	}
	stopCron, err := startCron(ctx, e, f, cfg, rt, deliver, log)
	if err != nil {
		return err
	}
	defer stopCron()
	var first error
	for range running {
		if err := <-done; err != nil && first == nil {
			first = err
			stop() // one part failed: stop the others too
		}
	}
	fmt.Fprintln(e.stderr, "hermes: gateway stopped")
	if first != nil && !errors.Is(first, net.ErrClosed) {
		return &exitError{code: exitFailed, err: first}
	}
	return nil
}

// startCron runs the cron scheduler beside the gateway's platforms, so
// jobs fire while the gateway is up (or wait for the lock while hermes
// cron daemon holds it), delivering through deliver. The returned
// function waits for it after ctx ends.
func startCron(ctx context.Context, e *env, f *runFlags, cfg *config.Config, rt *app.Runtime, deliver cron.Platforms, log *slog.Logger) (func(), error) {
	st, err := cron.Open(cron.StorePath(cfg.Home))
	if err != nil {
		return nil, &exitError{code: exitFailed, err: err}
	}
	runner, rts := cronRunner(e, f, cfg, st, deliver)
	rts.shared = rt
	s := &cron.Scheduler{Store: st, Runner: runner, Home: cfg.Home, MaxParallel: cfg.Cron.Parallel(), Poll: time.Second,
		Logf: func(format string, args ...any) { log.Info(fmt.Sprintf(format, args...)) }}
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		// A scheduler that cannot run leaves the chats served.
		if err := s.Run(ctx); err != nil {
			log.Error("cron: the scheduler stopped; jobs do not fire until hermes gateway or hermes cron daemon runs again", "err", err)
		}
	}()
	return func() {
		<-stopped
		rts.Close()
		st.Close()
	}, nil
}

// gatewayOptions are the gateway's settings from cfg.
func gatewayOptions(cfg *config.Config, f *runFlags, rt *app.Runtime, store *gateway.Store, adapters []gateway.Adapter, log *slog.Logger) gateway.Options {
	access := map[string]gateway.Access{}
	for _, name := range config.GatewayPlatformNames() {
		p := cfg.Gateway.Platforms.Settings(name)
		channels := map[string]bool{}
		for id, ch := range p.Channels {
			if ch.RequireMention != nil {
				channels[id] = *ch.RequireMention
			}
		}
		access[name] = gateway.Access{AllowAll: p.AllowAll, Allowed: p.AllowedUsers, Admins: p.AdminUsers,
			RequireMention: p.MentionRequired(""), Channels: channels}
	}
	return gateway.Options{
		Runtime: rt, Store: store, Adapters: adapters, Access: access,
		GroupSessionsPerUser: *cfg.Gateway.GroupSessionsPerUser,
		MaxConcurrentTurns:   cfg.Gateway.MaxConcurrentTurns,
		BusyMode:             cfg.Display.BusyMode(gateway.BusyInterrupt),
		Streaming:            *cfg.Streaming.Enabled,
		EditInterval:         cfg.Streaming.Interval(),
		ToolProgress:         cfg.Display.ToolProgress,
		ApprovalTimeout:      config.Seconds(cfg.Approvals.Timeout),
		Conversation:         app.ConversationOptions{Toolsets: f.toolsetList(), Sandbox: f.sandbox},
		CacheDir:             filepath.Join(cfg.Home, "cache"),
		StatusPath:           gateway.StatusPath(cfg.Home),
		LedgerPoll:           10 * time.Second,
		Logger:               log,
	}
}

// lockGateway makes sure one gateway serves a HERMES_HOME: two would
// answer every message twice and take each other's replies in flight
// for crashed ones.
func lockGateway(home string) (unlock func(), err error) {
	dir := filepath.Join(home, "gateway")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("gateway: %w", err)
	}
	path := filepath.Join(dir, "gateway.lock")
	fh, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("gateway: %w", err)
	}
	if err := syscall.Flock(int(fh.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		b, _ := os.ReadFile(path)
		fh.Close()
		return nil, fmt.Errorf("another hermes gateway (pid %s) is running on %s: stop it first", strings.TrimSpace(string(b)), home)
	}
	fh.Truncate(0)
	fh.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	return func() { fh.Close() }, nil
}
