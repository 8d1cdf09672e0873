package cli

import (
	"context"
	"errors"
	"os"

	"github.com/spf13/cobra"

	"github.com/hermes-go/hermes/internal/slash"
)

func newChatCmd(e *env, f *runFlags) *cobra.Command {
	c := &cobra.Command{
		Use:   "chat",
		Short: "Chat with the agent (interactive), or run one query with -q",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if cmd.Flags().Changed("query") {
				prompt, err := promptFlag("-q", f.query, e.stdin)
				if err != nil {
					return err
				}
				return runOneShot(cmd.Context(), e, f, prompt, !f.quiet)
			}
			if f.oneshot {
				return &exitError{code: exitUsage, err: errors.New("--oneshot needs a query: hermes chat -q \"...\" --oneshot")}
			}
			return runInteractive(cmd.Context(), e, f)
		},
	}
	addRunFlags(c.Flags(), f)
	c.Flags().StringVarP(&f.query, "query", "q", "", "the message to send (-: read it from standard input)")
	c.Flags().BoolVar(&f.oneshot, "oneshot", false, "run the query and exit (progress on stderr, answer on stdout)")
	c.Flags().BoolVarP(&f.quiet, "quiet", "Q", false, "no progress output")
	c.Flags().BoolVarP(&f.verbose, "verbose", "v", false, "more progress output")
	return c
}

// runInteractive opens the terminal UI when standard input and output are
// a terminal that can show it, and the line mode otherwise (TERM=dumb,
// NO_COLOR, pipes).
func runInteractive(ctx context.Context, e *env, f *runFlags) error {
	if ctx == nil {
		ctx = context.Background()
	}
	images, err := loadImages(f.images)
	if err != nil {
		return &exitError{code: exitUsage, err: err}
	}
	f.attach = images // --image goes with the first prompt
	commands := slash.Builtin()
	if canShowUI(e) {
		return runTUI(ctx, e, f, commands)
	}
	return runLineChat(ctx, e, f, commands)
}

// canShowUI reports whether the terminal UI can run: stdin and stdout
// are terminals, TERM is not dumb and NO_COLOR is not set.
func canShowUI(e *env) bool {
	if e.getenv("TERM") == "dumb" || e.getenv("NO_COLOR") != "" {
		return false
	}
	out, ok := e.stdout.(*os.File)
	return ok && isTerminal(e.stdin) && isTerminal(out)
}
