package cli

import (
	"context"
	"log/slog"
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/hermes-go/hermes/acp"
	"github.com/hermes-go/hermes/app"
)

func newACPCmd(e *env) *cobra.Command {
	f := &runFlags{}
	cmd := &cobra.Command{
		Use:   "acp",
		Short: "Serve the agent to an editor over the Agent Client Protocol (stdio)",
		Long: "hermes acp speaks the Agent Client Protocol on standard input and output, for editors such as Zed:\n" +
			"configure it as a custom agent whose command is \"hermes acp\". Each editor session works in its own\n" +
			"directory under the sandbox; dangerous commands ask the editor for permission. Logs go to stderr.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runACP(cmd.Context(), e, f)
		},
	}
	fs := cmd.Flags()
	addProviderFlags(fs, f)
	fs.StringVar(&f.toolsets, "toolsets", "", "comma-separated toolsets to enable (default: all)")
	fs.StringVar(&f.sandbox, "sandbox", "", "sandbox mode: read-only, workspace-write (default) or full-access (no sandbox)")
	fs.IntVar(&f.maxTurns, "max-turns", 0, "iteration budget per turn (default agent.max_turns, 500)")
	return cmd
}

func runACP(ctx context.Context, e *env, f *runFlags) error {
	if ctx == nil {
		ctx = context.Background()
	}
	cfg, err := loadConfig(e, f)
	if err != nil {
		return &exitError{code: exitFor(err), err: err}
	}
	rt, err := app.New(ctx, cfg, app.Options{
		Source: acp.Source, Platform: "acp", NoStream: f.noStream, Getenv: e.getenv,
		OnWarning: func(s string) { e.warn(s) },
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
	return acp.Serve(ctx, e.stdin, e.stdout, acp.Options{Runtime: rt, Version: Version,
		Logger: slog.New(slog.NewTextHandler(e.stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))})
}
