package cli

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"sync"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/hermes-go/hermes/app"
	"github.com/hermes-go/hermes/config"
	"github.com/hermes-go/hermes/cron"
	"github.com/hermes-go/hermes/cron/apprun"
	"github.com/hermes-go/hermes/internal/netguard"
)

// cronRuntimes hands each job the runtime of its endpoint: the one
// config.yaml and the command's flags describe, or, for a job with its
// own provider, base URL or key, one built for it. They are built on
// first use and closed together.
type cronRuntimes struct {
	e   *env
	f   *runFlags
	cfg *config.Config

	// shared, when set, is the runtime of jobs on the configured
	// endpoint (hermes gateway's own); it is not closed here.
	shared *app.Runtime
	// log is the process's log file, handed to the runtimes built here.
	log *slog.Logger

	mu  sync.Mutex
	rts map[string]*app.Runtime
}

func (c *cronRuntimes) get(ctx context.Context, j cron.Job) (*app.Runtime, error) {
	key := j.Provider + "\x00" + j.BaseURL + "\x00" + j.APIKey
	if j.Provider == "" && j.BaseURL == "" && j.APIKey == "" {
		key = ""
	}
	if key == "" && c.shared != nil {
		return c.shared, nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if rt := c.rts[key]; rt != nil {
		return rt, nil
	}
	cfg, err := loadConfig(c.e, c.f)
	if err != nil {
		return nil, err
	}
	if key != "" {
		cfg.Provider, cfg.BaseURL, cfg.APIKey = pick(j.Provider, cfg.Provider), pick(j.BaseURL, cfg.BaseURL), pick(j.APIKey, cfg.APIKey)
		cfg.Model.Name = pick(j.Model, cfg.Model.Name)
	}
	rt, err := app.New(ctx, cfg, app.Options{Source: "cron", Platform: "cron", NoStream: c.f.noStream, Getenv: c.e.getenv,
		OnWarning: func(s string) { c.e.warn(s) }, Logger: c.log})
	if err != nil {
		return nil, err
	}
	if c.rts == nil {
		c.rts = map[string]*app.Runtime{}
	}
	c.rts[key] = rt
	return rt, nil
}

func pick(v, def string) string {
	if v != "" {
		return v
	}
	return def
}

func (c *cronRuntimes) Close() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, rt := range c.rts {
		rt.Close()
	}
	c.rts = nil
}

// cronRunner is the runner of the home cfg names, over runtimes built
// on demand, delivering through platforms.
func cronRunner(e *env, f *runFlags, cfg *config.Config, st *cron.Store, platforms cron.Platforms) (*cron.Runner, *cronRuntimes) {
	rts := &cronRuntimes{e: e, f: f, cfg: cfg}
	return &cron.Runner{
		Store:   st,
		Exec:    apprun.Executor{Runtime: rts.get},
		Deliver: cronDeliverer(cfg, platforms),
		Home:    cfg.Home,
		Timeout: cfg.Cron.RunTimeout(),
	}, rts
}

// cronDeliverer delivers unattended runs' answers: to chats through
// platforms, to webhook URLs through the web tools' guard (a job the
// agent scheduled must not reach private addresses unless
// web.allow_private says so).
func cronDeliverer(cfg *config.Config, platforms cron.Platforms) *cron.Deliverer {
	g := &netguard.Guard{AllowPrivate: cfg.Web.AllowPrivate}
	return &cron.Deliverer{Platforms: platforms, Timeout: cfg.Cron.Delivery(), HTTPClient: g.Client(netguard.ClientOptions{})}
}

func newCronRunCmd(e *env, f *runFlags) *cobra.Command {
	return &cobra.Command{
		Use:   "run ID",
		Short: "Run a job now, in the foreground (exit 0 only when the run and its delivery succeeded)",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			cfg, st, err := cronOpen(e, f)
			if err != nil {
				return err
			}
			defer st.Close()
			ctx, stop := signal.NotifyContext(ensureCtx(cmd.Context()), os.Interrupt, syscall.SIGTERM)
			defer stop()
			j, err := st.Job(ctx, args[0])
			if err != nil {
				return cronErr(err)
			}
			lg := openLog(e, cfg, "cron", slog.LevelInfo)
			defer lg.Close()
			platforms, closePlatforms := cronPlatforms(cfg, lg.Logger)
			defer closePlatforms()
			runner, rts := cronRunner(e, f, cfg, st, platforms)
			rts.log = lg.File
			defer rts.Close()
			run, err := runner.RunNow(ctx, j)
			if err != nil {
				return &exitError{code: exitFailed, err: err}
			}
			fmt.Fprintf(e.stdout, "run %s: %s\n", run.ID, run.Status)
			if run.Output != "" {
				fmt.Fprintf(e.stdout, "output: %s\n", run.Output)
			}
			if run.Delivery != "" {
				fmt.Fprintf(e.stdout, "delivery: %s\n", run.Delivery)
			}
			if run.Status != cron.StatusOK {
				reason := run.Error
				if reason == "" {
					reason = run.Delivery
				}
				return &exitError{code: exitFailed, err: fmt.Errorf("cron run %s of %s: %s: %s", run.ID, j.Name, run.Status, reason)}
			}
			return nil
		},
	}
}

func newCronDaemonCmd(e *env, f *runFlags) *cobra.Command {
	return &cobra.Command{
		Use:   "daemon",
		Short: "Run the scheduler until SIGINT or SIGTERM (a second daemon waits, then takes over)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			cfg, st, err := cronOpen(e, f)
			if err != nil {
				return err
			}
			defer st.Close()
			ctx, stop := signal.NotifyContext(ensureCtx(cmd.Context()), os.Interrupt, syscall.SIGTERM)
			defer stop()
			lg := openLog(e, cfg, "cron daemon", slog.LevelInfo)
			defer lg.Close()
			log := lg.Logger
			platforms, closePlatforms := cronPlatforms(cfg, log)
			defer closePlatforms()
			runner, rts := cronRunner(e, f, cfg, st, platforms)
			rts.log = lg.File
			defer rts.Close()
			s := &cron.Scheduler{Store: st, Runner: runner, Home: cfg.Home, MaxParallel: cfg.Cron.Parallel(), Poll: time.Second,
				Logf: func(format string, args ...any) { log.Info(fmt.Sprintf(format, args...)) }}
			if err := s.Run(ctx); err != nil {
				return &exitError{code: exitFailed, err: err}
			}
			return nil
		},
	}
}
