package cli

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/hermes-go/hermes/app"
	"github.com/hermes-go/hermes/config"
	"github.com/hermes-go/hermes/cron"
	"github.com/hermes-go/hermes/gateway"
	"github.com/hermes-go/hermes/gateway/apiserver"
)

// serveFlags are hermes serve's own flags.
type serveFlags struct {
	listen      string
	allowPublic bool
	maxRuns     int
}

func newServeCmd(e *env) *cobra.Command {
	f := &runFlags{}
	sf := &serveFlags{}
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Serve the agent over an OpenAI-compatible HTTP API",
		Long: "hermes serve runs the OpenAI-compatible API server: POST /v1/chat/completions, POST /v1/responses,\n" +
			"GET/DELETE /v1/responses/{id}, GET /v1/models, GET /health; the Runs API (POST /v1/runs, GET /v1/runs/{id},\n" +
			"GET /v1/runs/{id}/events, POST /v1/runs/{id}/stop), GET /v1/capabilities, GET /health/detailed.\n" +
			"Any OpenAI client drives a full agent, tools included.\n\n" +
			"Every request needs \"Authorization: Bearer <key>\" with the key of API_SERVER_KEY (environment or\n" +
			"$HERMES_HOME/.env) or gateway.api_server.key; without one the server does not start. It listens on\n" +
			apiserver.DefaultAddr + " unless --listen (or gateway.api_server.host/port) says otherwise; an address other\n" +
			"than loopback also needs --allow-public. Commands that need approval are denied (approvals.unattended_mode).\n\n" +
			"POST /webhooks/NAME serves the routes of config.yaml's webhooks block: a delivery signed with its route's secret\n" +
			"(X-Hub-Signature-256 or X-Hermes-Signature: sha256=<hex>) starts an unattended run, 202 with its id; a delivery id\n" +
			"seen before runs nothing. With webhooks but no key, only they and /health are served.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runServe(cmd.Context(), e, f, sf, cmd.Flags().Changed("listen"))
		},
	}
	fs := cmd.Flags()
	addProviderFlags(fs, f)
	fs.StringVar(&f.toolsets, "toolsets", "", "comma-separated toolsets to enable (default: all)")
	fs.StringVar(&f.sandbox, "sandbox", "", "sandbox mode: read-only, workspace-write (default) or full-access (no sandbox)")
	fs.IntVar(&f.maxTurns, "max-turns", 0, "iteration budget per turn (default agent.max_turns, 500)")
	fs.StringVar(&sf.listen, "listen", "", "address to listen on, HOST:PORT (default gateway.api_server.host:port, "+apiserver.DefaultAddr+")")
	fs.BoolVar(&sf.allowPublic, "allow-public", false, "allow listening on an address other than loopback")
	fs.IntVar(&sf.maxRuns, "max-concurrent-runs", 0, "turns running at once (default gateway.api_server.max_concurrent_runs, 10)")
	return cmd
}

// runServe assembles the runtime and serves until SIGINT or SIGTERM.
func runServe(ctx context.Context, e *env, f *runFlags, sf *serveFlags, listenSet bool) error {
	if ctx == nil {
		ctx = context.Background()
	}
	cfg, err := loadConfig(e, f)
	if err != nil {
		return &exitError{code: exitFor(err), err: err}
	}
	a := &cfg.Gateway.APIServer
	if sf.maxRuns < 0 {
		return &exitError{code: exitUsage, err: fmt.Errorf("--max-concurrent-runs: %d is not allowed (a whole number, at least 1)", sf.maxRuns)}
	}
	if sf.maxRuns > 0 {
		a.MaxConcurrentRuns = sf.maxRuns
	}
	addr := net.JoinHostPort(a.Host, strconv.Itoa(a.Port))
	if listenSet {
		addr = sf.listen
	}
	return serveAPI(ctx, e, f, cfg, addr, sf.allowPublic || a.AllowPublic)
}

// serveAPI runs the API server of cfg on addr (hermes serve, and the
// api_server platform of hermes gateway).
func serveAPI(ctx context.Context, e *env, f *runFlags, cfg *config.Config, addr string, allowPublic bool) error {
	a := cfg.Gateway.APIServer
	if err := apiserver.CheckAddr(addr, allowPublic); err != nil {
		return &exitError{code: exitUsage, err: err}
	}
	if a.Key == "" && !cfg.Webhooks.Any() {
		return &exitError{code: exitUsage, err: apiserver.ErrNoKey}
	}
	transport := apiTransport(a.MaxConcurrentRuns)
	rt, err := app.New(ctx, cfg, app.Options{
		Source: "api_server", Platform: "api", NoStream: f.noStream, Getenv: e.getenv,
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
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	platforms, closePlatforms := cronPlatforms(cfg, slog.New(slog.NewTextHandler(e.stderr, &slog.HandlerOptions{Level: slog.LevelInfo})))
	defer closePlatforms()
	return serveAPIOn(ctx, e, rt, transport, cfg, addr, platforms)
}

// apiTransport is the model client's transport for n turns at once:
// every running turn keeps a connection to the model warm.
func apiTransport(n int) *http.Transport {
	transport := http.DefaultTransport.(*http.Transport).Clone()
	transport.MaxIdleConns = max(100, 2*n)
	transport.MaxIdleConnsPerHost = max(10, 2*n)
	return transport
}

// serveAPIOn serves the API server of cfg on addr over rt until ctx ends.
func serveAPIOn(ctx context.Context, e *env, rt *app.Runtime, transport *http.Transport, cfg *config.Config, addr string, platforms cron.Platforms) error {
	a := cfg.Gateway.APIServer
	hooks, closeHooks, err := webhookOptions(cfg, platforms)
	if err != nil {
		return err
	}
	defer closeHooks()
	srv, err := apiserver.New(apiserver.Options{
		Runtime: rt, Key: a.Key, ModelName: a.ModelName, CORSOrigins: a.CORSOrigins,
		MaxConcurrentRuns: a.MaxConcurrentRuns, QueueTimeout: config.Seconds(a.QueueTimeout),
		AllowUnattended: cfg.Approvals.UnattendedMode == "allow",
		OnIdle: func() {
			transport.CloseIdleConnections()
			if err := rt.Store().ReleaseMemory(context.Background()); err != nil {
				e.warn(err)
			}
		},
		Logger:   slog.New(slog.NewTextHandler(e.stderr, &slog.HandlerOptions{Level: slog.LevelWarn})),
		Webhooks: hooks.Webhooks, Deliveries: hooks.Deliveries, MaxWebhookBody: hooks.MaxWebhookBody, Deliver: hooks.Deliver,
	})
	if err != nil {
		return &exitError{code: exitUsage, err: err}
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return &exitError{code: exitFailed, err: fmt.Errorf("listen %s: %w", addr, err)}
	}
	ep := rt.Endpoint()
	if len(hooks.Webhooks) > 0 {
		fmt.Fprintf(e.stderr, "hermes: webhooks (POST /webhooks/NAME): %s\n", strings.Join(slices.Sorted(maps.Keys(hooks.Webhooks)), ", "))
		if a.Key == "" {
			e.warn("no API key (API_SERVER_KEY or gateway.api_server.key): serving only webhooks and /health; every other request gets 401")
		}
	}
	fmt.Fprintf(e.stderr, "hermes: API server listening on http://%s (model %s via %s/%s, %d concurrent runs, workspace %s)\n",
		ln.Addr(), a.ModelName, ep.Provider, ep.Model, a.MaxConcurrentRuns, rt.Workdir())
	start := time.Now()
	err = srv.Serve(ctx, ln)
	fmt.Fprintf(e.stderr, "hermes: API server stopped after %s\n", time.Since(start).Round(time.Second))
	if err != nil && !errors.Is(err, net.ErrClosed) {
		return &exitError{code: exitFailed, err: err}
	}
	return nil
}

// webhookOptions are the API server's webhook settings from cfg: its
// routes (refused when a secret is missing), the gateway store that
// remembers their deliveries, and the deliverer of their answers.
func webhookOptions(cfg *config.Config, platforms cron.Platforms) (apiserver.Options, func(), error) {
	var o apiserver.Options
	if !cfg.Webhooks.Any() {
		return o, func() {}, nil
	}
	if err := cfg.CheckWebhooks(); err != nil {
		return o, nil, &exitError{code: exitUsage, err: err}
	}
	store, err := gateway.OpenStore(gateway.StorePath(cfg.Home), time.Now)
	if err != nil {
		return o, nil, &exitError{code: exitFailed, err: fmt.Errorf("webhooks: %w", err)}
	}
	o.Webhooks = make(map[string]apiserver.WebhookRoute, len(cfg.Webhooks.Routes))
	for name, r := range cfg.Webhooks.Routes {
		o.Webhooks[name] = apiserver.WebhookRoute{Secret: r.Secret, Prompt: r.Prompt, Events: r.Events, Toolsets: r.Toolsets,
			Deliver: r.Deliver, Model: r.Model}
	}
	o.Deliveries, o.MaxWebhookBody, o.Deliver = store, cfg.Webhooks.MaxBody(), webhookDeliver(cfg, platforms)
	return o, func() { store.Close() }, nil
}

// webhookDeliver delivers a webhook run's answer to its route's target,
// as cron delivers a job's: a chat through platforms, a URL through the
// web guard, local to $HERMES_HOME/webhooks/output/<run id>.md; an
// answer of exactly [SILENT] goes nowhere but a local file.
func webhookDeliver(cfg *config.Config, platforms cron.Platforms) func(ctx context.Context, target, runID, text string) error {
	dl := cronDeliverer(cfg, platforms)
	return func(ctx context.Context, target, runID, text string) error {
		t, err := cron.ParseTarget(target)
		if err != nil {
			return err
		}
		if t.Kind == cron.Local {
			dir := filepath.Join(cfg.Home, "webhooks", "output")
			if err := os.MkdirAll(dir, 0o700); err != nil {
				return err
			}
			return os.WriteFile(filepath.Join(dir, runID+".md"), []byte(text), 0o600)
		}
		_, err = dl.Deliver(ctx, t, cron.Delivery{RunID: runID, Status: cron.StatusOK, Output: text})
		return err
	}
}
