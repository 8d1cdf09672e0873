//go:build temporal

package cli

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/hermes-go/hermes/app"
	"github.com/hermes-go/hermes/batch"
	"github.com/hermes-go/hermes/batch/temporal"
	"github.com/hermes-go/hermes/config"
)

// newTemporalEngine connects the submitter of --engine temporal.
func newTemporalEngine(ctx context.Context, e *env, f *batchFlags, cfg *config.Config) (batch.Engine, error) {
	c, err := temporal.Dial(f.temporal.address, f.temporal.namespace, e.stderr)
	if err != nil {
		return nil, &exitError{code: exitFailed, err: err}
	}
	fmt.Fprintf(e.stderr, "hermes batch: submitting to Temporal at %s (task queue %s); run workers with: hermes batch worker --temporal %s\n",
		f.temporal.address, f.temporal.queue, f.temporal.address)
	return &temporalEngine{Engine: temporal.Engine{Client: c, Queue: f.temporal.queue, Settings: temporal.Task{
		Model: f.run.model, MaxTurns: f.run.maxTurns, ReasoningEffort: f.run.effort, Memory: f.memory,
		Heartbeat: f.temporal.heartbeat, ModelTimeout: f.temporal.modelTimeout, ToolTimeout: f.temporal.toolTimeout,
	}}}, nil
}

type temporalEngine struct{ temporal.Engine }

func (t *temporalEngine) Close() error {
	t.Client.Close()
	return nil
}

// newBatchWorkerCmd is `hermes batch worker`.
func newBatchWorkerCmd(e *env) *cobra.Command {
	f := &runFlags{}
	tf := &temporalFlags{}
	var activities int
	cmd := &cobra.Command{
		Use:   "worker --temporal HOST:PORT",
		Short: "Run prompts of hermes batch --engine temporal on this machine",
		Long: "Polls the task queue and runs prompts' workflows, model calls and tool calls here, with this machine's\n" +
			"configuration and keys, each prompt in its workspace (relative to the current directory) under the sandbox.\n" +
			"A worker killed mid-prompt loses only the call it was making: another worker retries it and goes on.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			if ctx == nil {
				ctx = context.Background()
			}
			cfg, err := loadConfig(e, f)
			if err != nil {
				return &exitError{code: exitFor(err), err: err}
			}
			w := &temporal.Worker{Config: cfg, Options: app.Options{Getenv: e.getenv, NoStream: f.noStream, OnWarning: func(string) {}}, Activities: activities}
			if p, err := app.SandboxPolicy(cfg, ".", e.getenv); err == nil {
				if st := p.Enforcement(); st.Short() {
					e.warn(st)
				}
			}
			c, err := temporal.Dial(tf.address, tf.namespace, e.stderr)
			if err != nil {
				return &exitError{code: exitFailed, err: err}
			}
			defer c.Close()
			ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
			defer stop()
			fmt.Fprintf(e.stderr, "hermes batch worker: polling task queue %s at %s\n", tf.queue, tf.address)
			if err := w.Run(ctx, c, tf.queue); err != nil {
				return &exitError{code: exitFailed, err: err}
			}
			return nil
		},
	}
	fs := cmd.Flags()
	addProviderFlags(fs, f)
	addTemporalFlags(fs, tf)
	fs.StringVar(&f.sandbox, "sandbox", "", "sandbox mode: read-only, workspace-write (default) or full-access")
	fs.IntVar(&activities, "activities", 64, "model and tool calls run at once")
	return cmd
}
